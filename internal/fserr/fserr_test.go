package fserr

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestBare(t *testing.T) {
	_, err := os.Open(filepath.Join(t.TempDir(), "missing.jsonl"))
	if got := Bare(err); got.Error() != "no such file or directory" || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("Bare(%v) = %v", err, got)
	}
	other := errors.New("not a path error")
	if Bare(other) != other {
		t.Error("an error without a path changed")
	}
}
