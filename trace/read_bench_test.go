package trace_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// BenchmarkReadCanonical measures reading the canonical format as
// goldtrace exports it and the import benchmark's files hold it (tools
// with schema objects, arguments as objects): record splitting, decoding,
// normalisation and validation, on one goroutine.
func BenchmarkReadCanonical(b *testing.B) {
	var buf bytes.Buffer
	if _, err := synth.Write(&buf, synth.Options{Seed: 1, N: 2000}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := trace.NewReader(bytes.NewReader(data), trace.FormatTrace)
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
