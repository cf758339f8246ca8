package app

import (
	"fmt"
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
