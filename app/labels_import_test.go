package app

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// TestLabelsImportOfAnAdjudicatedItemImportsNothing: a valid line whose
// item a lead has adjudicated is refused before anything is written,
// naming its line, and the other lines are not imported either.
func TestLabelsImportOfAnAdjudicatedItemImportsNothing(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, st, item := projectOn(t, engine) // alice has submitted ORD-1
		if _, err := st.SubmitLabel(ctx, label(item, "bob", "ORD-2")); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Resolve(ctx, store.Resolution{Item: item, Lead: "carol", Reason: "alice is right", Pick: "alice"}); err != nil {
			t.Fatal(err)
		}
		execAll(t, st, []string{`INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES ('` + item + `', 'dave', 'b1', 1, 'now')`})
		line := `{"item":"` + item + `","reviewer":"dave","decision":"no_call","rationale":"nothing to look up"}` + "\n"
		open := func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader("\n" + line)), nil }
		rep, err := a.ImportLabels(ctx, actor(t, a, "carol"), open, LabelsImportOptions{File: "late.jsonl", ForOthers: true})
		want := "late.jsonl:2: item " + item + " is already settled"
		if !errors.Is(err, store.ErrConflict) || !strings.HasPrefix(err.Error(), want) || !strings.HasSuffix(err.Error(), "; nothing imported") || rep.Imported != 0 {
			t.Fatalf("import for an adjudicated item: %v %+v, want %q…", err, rep, want)
		}
		if _, err := st.Label(ctx, item, "dave"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("dave's label was written: %v", err)
		}
	})
}
