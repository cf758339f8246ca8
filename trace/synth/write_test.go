package synth

import (
	"bytes"
	"errors"
	"testing"
)

func TestParallelWriteMatchesSequential(t *testing.T) {
	for _, opts := range []Options{
		{Seed: 2, N: writeChunk*3 + 7},
		{Seed: 2, N: writeChunk*2 + 1, Offset: 500},
		{Seed: 2, N: writeChunk + 1},
		{Seed: 2, N: 0},
	} {
		var seq, par bytes.Buffer
		if _, err := writeSequential(&seq, opts.withDefaults()); err != nil {
			t.Fatal(err)
		}
		n, err := Write(&par, opts)
		if err != nil {
			t.Fatal(err)
		}
		if n != int64(par.Len()) || !bytes.Equal(seq.Bytes(), par.Bytes()) {
			t.Errorf("%+v: parallel Write (%d bytes) differs from sequential (%d bytes)", opts, par.Len(), seq.Len())
		}
		if lines := bytes.Count(par.Bytes(), []byte("\n")); lines != opts.N {
			t.Errorf("%+v: %d lines", opts, lines)
		}
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct{ limit int }

var errDiskFull = errors.New("disk full")

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		n := f.limit
		f.limit = 0
		return n, errDiskFull
	}
	f.limit -= len(p)
	return len(p), nil
}

func TestWriteStopsAtTheFirstError(t *testing.T) {
	for _, n := range []int{50, 5000} {
		n, err := Write(&failingWriter{limit: 100_000}, Options{Seed: 1, N: n})
		if !errors.Is(err, errDiskFull) {
			t.Fatalf("error %v, want the writer's", err)
		}
		if n != 100_000 {
			t.Errorf("reported %d bytes written, the writer took 100000", n)
		}
	}
}
