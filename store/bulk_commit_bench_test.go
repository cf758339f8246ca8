package store

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkBulkChunkCommit writes dataset versions of 100k items as one
// transaction (as export did), in chunks committed synchronous=FULL (as bulk
// writes did), and in chunks committed synchronous=NORMAL with one log sync
// at the end (as they do now):
// max-hold-ms is the longest any chunk held the write lock, commit
// included (the bound docs/reliability.md promises is ~250 ms), mean-hold-ms the average,
// max-commit-ms the longest commit alone (the fsync, with FULL).
func BenchmarkBulkChunkCommit(b *testing.B) {
	hashes := map[string]string{}
	for i := 0; i < 100000; i++ {
		hashes[fmt.Sprintf("it_%016x", i)] = fmt.Sprintf("%064x", i)
	}
	for _, mode := range []struct {
		name      string
		full      bool
		chunkTime time.Duration
	}{
		{"one-transaction", true, time.Hour},
		{"chunks-sync=FULL", true, defaultBulkPace.ChunkTime},
		{"chunks-sync=NORMAL", false, defaultBulkPace.ChunkTime},
	} {
		b.Run(mode.name, func(b *testing.B) {
			ctx := context.Background()
			st, err := Open(ctx, filepath.Join(b.TempDir(), "gt.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			var longest, total, commit time.Duration
			chunks := 0
			pace := defaultBulkPace
			pace.Full, pace.ChunkTime = mode.full, mode.chunkTime
			pace.Yield = time.Millisecond
			pace.Held = func(work, held time.Duration) {
				longest, total, commit, chunks = max(longest, held), total+held, max(commit, held-work), chunks+1
			}
			content, err := CompressContent(bytesParts("{}\n"))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				v := DatasetVersion{Name: "d", Version: i + 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: "aa", Count: len(hashes)}
				if err := st.writeDatasetVersion(ctx, "d", i+1, hashes, rowOf(v, []byte(`{}`), content), pace); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(longest)/float64(time.Millisecond), "max-hold-ms")
			b.ReportMetric(float64(total)/float64(chunks)/float64(time.Millisecond), "mean-hold-ms")
			b.ReportMetric(float64(commit)/float64(time.Millisecond), "max-commit-ms")
		})
	}
}
