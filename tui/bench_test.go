package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// bulkStore stores traces×10 decision points, all assigned to alice.
func bulkStore(b *testing.B, dir string, traces int) *store.Store {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, "bulk.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.AddUser(ctx, "alice", store.RoleReviewer); err != nil {
		b.Fatal(err)
	}
	err = st.WithTx(ctx, func(tx *store.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 1, 'now')`); err != nil {
			return err
		}
		pos := 0
		for i := range traces {
			tr := fixtureTrace(i)
			base := tr.Messages
			tr.Messages = append([]trace.Message(nil), base[:2]...)
			for turn := range 10 {
				tr.Messages = append(tr.Messages, trace.Message{Role: "assistant", Content: fmt.Sprintf("step %d", turn)},
					trace.Message{Role: "user", Content: "and then?"})
			}
			if _, err := st.InsertTrace(ctx, tx, tr, "bench"); err != nil {
				return err
			}
			for _, it := range trace.Items(tr) {
				if _, err := tx.ExecContext(ctx, `INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES (?, 'alice', 'b1', ?, 'now')`, it.ID, pos); err != nil {
					return err
				}
				pos++
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// BenchmarkLabel100k measures the label screen over a store holding 100,000
// assigned items: one keystroke (Update + View) in the rationale and in the
// arguments (live schema validation), and a cold start to the first frame
// (open the store, load the queue head, its item, draft and guide, render).
func BenchmarkLabel100k(b *testing.B) {
	// GOLDTRACE_BENCH_DIR keeps the 100k-item database between runs
	// (building it takes a minute or two).
	dir := os.Getenv("GOLDTRACE_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	if _, err := os.Stat(filepath.Join(dir, "bulk.db")); err != nil {
		bulkStore(b, dir, 10_000).Close()
	}
	ctx := context.Background()

	open := func(b *testing.B) (*Root, *LabelPage) {
		st, err := store.Open(ctx, filepath.Join(dir, "bulk.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		c := &Common{Styles: StylesFor(false), Keys: DefaultKeyMap(), API: as(b, st, "alice"), Now: func() time.Time { return t0 }}
		r := NewLabelRoot(c, LabelOptions{Reviewer: "alice"}, true)
		page := r.Page(PageLabel).(*LabelPage)
		page.after, r.status.after = noTimer, noTimer
		r.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		drain(r, r.Init())
		return r, page
	}
	b.Run("cold_start_to_first_frame", func(b *testing.B) {
		for b.Loop() {
			r, page := open(b)
			if page.state != stateReady || r.View() == "" {
				b.Fatal("no first frame")
			}
		}
	})
	keystroke := func(b *testing.B, r *Root, msg tea.KeyMsg) {
		for b.Loop() {
			r.Update(msg) // the autosave it schedules is a timer, off here
			_ = r.View()
		}
	}
	b.Run("keystroke_rationale", func(b *testing.B) {
		r, page := open(b)
		k := &keys{r: r}
		k.typ("no tool")
		k.press(tea.KeyEnter)
		if page.form.focus != fieldRationale {
			b.Fatal("not in the rationale")
		}
		keystroke(b, r, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}})
	})
	b.Run("keystroke_args", func(b *testing.B) {
		r, page := open(b)
		k := &keys{r: r}
		k.typ("ship")
		k.press(tea.KeyEnter)
		if page.form.focus != fieldArgs {
			b.Fatal("not in the arguments")
		}
		keystroke(b, r, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'x'}})
	})
}
