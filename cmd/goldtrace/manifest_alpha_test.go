package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/store"
)

// TestManifestCarriesStatusAlpha: once every labeled item is gold, the
// manifest's alpha_tool is the Krippendorff's alpha status shows (to the
// manifest's four decimals), and so are its percent agreement and kappa
// for the one reviewer pair.
func TestManifestCarriesStatusAlpha(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "goldtrace.db")
	if _, errOut, code := expRun(t, db, "demo", "--no-tui", "--dir", dir, "--traces", "200", "--batch-items", "40", "--prelabeled", "40"); code != 0 {
		t.Fatalf("demo: %s", errOut)
	}
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	disputes, err := st.DisputedQueue(ctx, store.DisputeFilter{})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(disputes) == 0 {
		t.Fatal("the demo batch has no disputes: alpha would not be tested against disagreement")
	}
	for _, d := range disputes {
		if _, errOut, code := expRun(t, db, "resolve", d.Item, "--as", "carol", "--pick", "bob", "--reason", "per the guide"); code != 0 {
			t.Fatalf("resolve %s: %s", d.Item, errOut)
		}
	}
	out, errOut, code := expRun(t, db, "status", "--as", "carol", "--json")
	if code != 0 {
		t.Fatalf("status: %s", errOut)
	}
	var status struct {
		Agreement struct {
			Exact *float64 `json:"exact"`
			Alpha struct {
				Alpha *float64 `json:"alpha"`
			} `json:"alpha"`
			Pairs []struct {
				Kappa struct {
					Kappa *float64 `json:"kappa"`
				} `json:"kappa"`
			} `json:"pairs"`
		} `json:"agreement"`
	}
	if err := json.Unmarshal([]byte(out), &status); err != nil {
		t.Fatal(err)
	}
	a := status.Agreement
	if a.Alpha.Alpha == nil || *a.Alpha.Alpha >= 1 || len(a.Pairs) != 1 {
		t.Fatalf("status agreement %s: want an alpha below 1 for one reviewer pair", out)
	}
	if _, errOut, code := expRun(t, db, "export", "support", "--as", "carol", "--out", dir); code != 0 {
		t.Fatalf("export: %s", errOut)
	}
	m := expManifest(t, filepath.Join(dir, dataset.ManifestName("support", 1)))
	for _, c := range []struct {
		name           string
		status, manife *float64
	}{
		{"alpha_tool", a.Alpha.Alpha, m.Agreement.AlphaTool},
		{"kappa_tool", a.Pairs[0].Kappa.Kappa, m.Agreement.KappaTool},
		{"percent_agreement", a.Exact, m.Agreement.PercentAgreement},
	} {
		if c.manife == nil {
			t.Errorf("manifest %s is null, status shows %v", c.name, *c.status)
			continue
		}
		if *c.manife != dataset.Round4(*c.status) {
			t.Errorf("manifest %s = %v, status shows %v", c.name, *c.manife, *c.status)
		}
	}
}
