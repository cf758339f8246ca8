package store

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/review"
)

// BenchmarkSubmitLabelsFile times the writes of SubmitLabels alone (the write
// path of `labels import`, without reading and checking the file) on a
// copy of the WaitCLI bench store: the 50k labels of labels-a.jsonl (25k
// items, two reviewers each) into sampled.db, on SQLite. The store is
// upgraded once, outside the timing; each run writes into a fresh copy.
// submit writes them with SubmitLabels' writer (everything read again
// under the lock); stream as labels import does (LabelStream: what the
// writer needs read beside it, in rounds of 2,000 labels, the writer
// reading nothing again while it is alone). The CPU seconds are the
// process's: the writer's and, with stream, its preparer's.
//
//	GOLDTRACE_WAIT_BENCH_DIR=/tmp/… go test ./store -run '^$' -bench SubmitLabelsFile -benchtime 3x
func BenchmarkSubmitLabelsFile(b *testing.B) {
	b.Run("submit", func(b *testing.B) {
		benchSubmitLabelsFile(b, func(ctx context.Context, st *Store, labels []review.Label) error {
			_, err := st.submitLabels(ctx, labels, labelsPace)
			return err
		})
	})
	b.Run("stream", func(b *testing.B) {
		benchSubmitLabelsFile(b, func(ctx context.Context, st *Store, labels []review.Label) error {
			ls := st.LabelStream(ctx)
			in := make(chan CheckedLabels, len(labels)/2000+1)
			for start := 0; start < len(labels); start += 2000 {
				in <- CheckedLabels{Labels: labels[start:min(start+2000, len(labels))]}
			}
			close(in)
			_, err := ls.Submit(ctx, in)
			return err
		})
	})
}

func benchSubmitLabelsFile(b *testing.B, submit func(ctx context.Context, st *Store, labels []review.Label) error) {
	dir := os.Getenv("GOLDTRACE_WAIT_BENCH_DIR")
	if dir == "" {
		b.Skip("GOLDTRACE_WAIT_BENCH_DIR (sampled.db, labels-a.jsonl) not set")
	}
	for _, f := range []string{"sampled.db", "labels-a.jsonl"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			b.Skipf("%s: run BenchmarkWaitCLI (cmd/goldtrace) with GOLDTRACE_WAIT_BENCH_DIR first: it makes the data", err)
		}
	}
	ctx := context.Background()
	labels := readLabelsFile(b, filepath.Join(dir, "labels-a.jsonl"))
	upgraded := filepath.Join(b.TempDir(), "upgraded.db")
	copyFile(b, filepath.Join(dir, "sampled.db"), upgraded)
	st, err := Open(ctx, upgraded)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.Close(); err != nil {
		b.Fatal(err)
	}
	var took, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "li.db")
		copyFile(b, upgraded, path)
		st, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		began := time.Now()
		cpuBegan, _ := processCPU()
		if err := submit(ctx, st, labels); err != nil {
			b.Fatal(err)
		}
		took += time.Since(began)
		cpuEnded, _ := processCPU()
		cpu += cpuEnded - cpuBegan
		b.StopTimer()
		if err := st.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(labels)*b.N)/took.Seconds(), "labels/s")
	if cpu > 0 {
		// On a shared machine, the CPU the writes took varies less than
		// their time.
		b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	}
}

func readLabelsFile(tb testing.TB, path string) []review.Label {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var out []review.Label
	dec := json.NewDecoder(bufio.NewReader(f))
	for {
		var l review.Label
		if err := dec.Decode(&l); err == io.EOF {
			return out
		} else if err != nil {
			tb.Fatal(err)
		}
		out = append(out, l)
	}
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		tb.Fatal(err)
	}
}
