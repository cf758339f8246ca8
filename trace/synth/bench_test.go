package synth

import (
	"io"
	"testing"
)

// BenchmarkWrite measures the JSON Lines writer (MB/s is what makes 1 GB
// benchmark inputs quick to produce).
func BenchmarkWrite(b *testing.B) {
	const perOp = 1000
	n, err := Write(io.Discard, Options{Seed: 1, N: perOp})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Write(io.Discard, Options{Seed: int64(i), N: perOp}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGenerateCase(b *testing.B) {
	b.ReportAllocs()
	s := NewStream(Options{Seed: 1, N: b.N})
	for i := 0; i < b.N; i++ {
		s.NextCase()
	}
}
