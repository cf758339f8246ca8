package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

func TestStatusCLIViews(t *testing.T) {
	db, _ := rvDisputed(t)
	lead, errs, code := rvRun(t, db, "", "status", "--as", "carol")
	if code != 0 {
		t.Fatalf("lead: %s", errs)
	}
	for _, want := range []string{"status as lead carol", "1 disputed", "alice–bob", "COHEN'S KAPPA", "open disputes by kind: args 1", "args given the same tool 0.0% (0/1)", "median 30s per label",
		"Gwet's AC1", "kappa (Cohen, Conger)", "Krippendorff's alpha", "bootstrap resamples of items", "AC1 (95% CI)", "argument paths agreed least"} {
		if !strings.Contains(lead, want) {
			t.Errorf("lead view lacks %q:\n%s", want, lead)
		}
	}
	for _, line := range strings.Split(lead, "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns: %q", n, line)
		}
	}
	var ls store.Status
	out, _, _ := rvRun(t, db, "", "status", "--json", "--as", "carol")
	if err := json.Unmarshal([]byte(out), &ls); err != nil || ls.Agreement == nil || ls.Agreement.Reliability.Replicates != 1000 || len(ls.Agreement.ArgPaths) == 0 {
		t.Errorf("lead json: %v %s", err, out)
	}
	// One item: undefined statistics are null, never a number.
	if !strings.Contains(out, `"ac1": {`) || !strings.Contains(out, `"value": null`) {
		t.Errorf("lead json lacks AC1 or a null: %s", out)
	}
	rev, _, code := rvRun(t, db, "", "status", "--as", "alice")
	if code != 0 || !strings.Contains(rev, "alice") || strings.Contains(rev, "bob") || strings.Contains(rev, "disputed") || strings.Contains(rev, "KAPPA") {
		t.Errorf("reviewer view:\n%s", rev)
	}
	tot, _, code := rvRun(t, db, "", "status", "--batch", "b1")
	if code != 0 || strings.Contains(tot, "alice") || !strings.Contains(tot, "1 item: 0 open, 1 settled") {
		t.Errorf("totals view:\n%s", tot)
	}
	out, _, _ = rvRun(t, db, "", "status", "--json", "--as", "alice")
	var s store.Status
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.View != store.ViewReviewer || s.Agreement != nil {
		t.Errorf("json: %v %+v", err, s)
	}
	if _, errs, code := rvRun(t, db, "", "status", "--as", "zed"); code != 2 || !strings.Contains(errs, `user "zed"`) {
		t.Errorf("unknown user: %d %s", code, errs)
	}
}
