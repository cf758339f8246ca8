package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/store"
)

// TestExportIsALeadsAndAudited: app.Export refuses a reviewer before
// anything is read or written, writes the lead's version with the lead as
// created_by, records it in the audit log, and writes nothing new when
// nothing changed; Rematerialise writes the stored bytes again.
func TestExportIsALeadsAndAudited(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine)
		if _, err := st.SubmitLabel(ctx, label(item, "bob", "ORD-1")); err != nil { // agrees with alice: gold
			t.Fatal(err)
		}
		out := filepath.Join(t.TempDir(), "out")
		var warned []string
		eio := ExportIO{Warn: func(line string) { warned = append(warned, line) }}
		_, err := a.Export(ctx, actor(t, a, "alice"), "support", ExportOptions{Out: out}, eio)
		var de *DeniedError
		if !errors.As(err, &de) || de.Action != ActExport {
			t.Fatalf("alice's export: %v", err)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused export touched --out: %v", err)
		}
		res, err := a.Export(ctx, actor(t, a, "carol"), "support", ExportOptions{Out: out, Message: "first"}, eio)
		if err != nil || res.Version != 1 || res.Count != 1 || res.Added != 1 || len(res.Files) != 2 || res.Unchanged || res.Rewritten {
			t.Fatalf("carol's export: %v %+v", err, res)
		}
		mb, err := os.ReadFile(filepath.Join(out, dataset.ManifestName("support", 1)))
		if err != nil {
			t.Fatal(err)
		}
		m, err := dataset.ParseManifest(mb)
		if err != nil || m.CreatedBy != "carol" || m.Message != "first" {
			t.Fatalf("manifest: %v created_by %q message %q", err, m.CreatedBy, m.Message)
		}
		log, err := st.AuditLog(ctx, store.AuditFilter{Action: ActExport.String()})
		if err != nil || len(log) != 2 || log[0].Outcome == log[1].Outcome {
			t.Fatalf("audit of the refusal and the export: %v %+v", err, log)
		}
		// Nothing changed: nothing written, the same version reported.
		again, err := a.Export(ctx, actor(t, a, "carol"), "support", ExportOptions{Out: out}, eio)
		if err != nil || !again.Unchanged || again.Version != 1 || again.SHA256 != res.SHA256 || len(warned) != 0 {
			t.Fatalf("unchanged export: %v %+v %q", err, again, warned)
		}
		// Its files gone from a new --out: written again, with a warning.
		other := filepath.Join(t.TempDir(), "other")
		again, err = a.Export(ctx, actor(t, a, "carol"), "support", ExportOptions{Out: other}, eio)
		if err != nil || !again.Rewritten || len(again.Files) != 2 || len(warned) != 1 {
			t.Fatalf("export into a new --out: %v %+v %q", err, again, warned)
		}
		want, _ := os.ReadFile(filepath.Join(out, dataset.FileName("support", 1)))
		got, _ := os.ReadFile(filepath.Join(other, dataset.FileName("support", 1)))
		if len(want) == 0 || string(got) != string(want) {
			t.Fatalf("rewritten JSONL differs:\n%s\n%s", got, want)
		}
		if _, err := a.Rematerialise(ctx, actor(t, a, "alice"), dataset.Ref{Name: "support", Version: 9}, other, nil); !errors.Is(err, ErrNotFound) || err.Error() != "support@v9: no such dataset version (goldtrace datasets lists them)" {
			t.Fatalf("a missing version: %v", err)
		}
	})
}
