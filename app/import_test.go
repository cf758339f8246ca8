package app

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// An import that failed on a full disk says nothing was imported only when
// its undo removed everything; when the undo failed too, its line says
// what stays, and not both.
func TestInputErrorPartsOnAFullDisk(t *testing.T) {
	full := fmt.Errorf("database gt.db: the disk is full; free space and try again: %w", store.ErrDiskFull)
	_, undone := InputErrorParts(full)
	if !strings.HasSuffix(undone, "(what the import wrote was removed again: nothing imported)") {
		t.Errorf("undone: %q", undone)
	}
	_, kept := InputErrorParts(&store.UndoError{Err: full, Kept: []string{"a", "b"}, UndoErr: full})
	if strings.Contains(kept, "removed again") || !strings.Contains(kept, "2 traces it wrote stay stored") {
		t.Errorf("undo failed: %q", kept)
	}
}

// TestInterruptedImportIsAuditedWithWhatItWrote: an import interrupted
// after some chunks keeps them, and its audit entry counts them: the log
// says who put those traces there.
func TestInterruptedImportIsAuditedWithWhatItWrote(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		a, st, _ := projectOn(t, engine)
		before := countTraces(t, st)
		pr, pw := io.Pipe()
		defer pr.Close()
		go func() {
			// 5000 traces, then an input that never ends (an idle stdin).
			for i := 0; i < 5000; i++ {
				if _, err := fmt.Fprintf(pw, `{"id":"int_%05d","messages":[{"role":"user","content":"q%d"},{"role":"assistant","content":"a"}]}`+"\n", i, i); err != nil {
					return
				}
			}
		}()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := a.Import(ctx, actor(t, a, "carol"), []string{"-"}, ImportOptions{Format: "auto", Stdin: pr,
			Progress: func(string) (func(store.ImportProgress), func()) {
				return func(p store.ImportProgress) {
					if p.Imported > 0 {
						cancel()
					}
				}, func() {}
			}})
		if err == nil || !strings.Contains(err.Error(), "interrupted: stopped at") {
			t.Fatalf("err = %v, want the import interrupted", err)
		}
		written := countTraces(t, st) - before
		if written == 0 {
			t.Fatal("the interrupted import kept no trace")
		}
		log, err := st.AuditLog(context.Background(), store.AuditFilter{Action: ActImport.String()})
		if err != nil || len(log) != 1 {
			t.Fatalf("audit %+v, %v", log, err)
		}
		if want := fmt.Sprintf("-: %d traces imported", written); !strings.Contains(log[0].Object, want) {
			t.Errorf("audit entry %q, want %q", log[0].Object, want)
		}
	})
}

func countTraces(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	if err := st.Reader().QueryRowContext(context.Background(), `SELECT count(*) FROM traces`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
