//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// BenchmarkWaitCLI measures the commands users wait for (issue #30) as the
// built binary a user types, each run alternated in the same run with a
// reference build of the same commands when $GOLDTRACE_BENCH_BEFORE names
// one (for example goldtrace built from main): `labels import` of 50k
// labels (25k items × 2 reviewers, one in ten disputed; on SQLite, and on
// PostgreSQL when GOLDTRACE_TEST_PG is set), `export` of 50k
// gold items (a new version; a stored version's files written again),
// `status --as lead` and `check` on 100k labels, and `sample --n 500 --by
// tool` and `check` on the store of ~180k traces (543k candidates). Reported: wall
// and CPU seconds (user + system: on a shared machine wall time measures
// the queue for the CPU too) and peak RSS of both, and the wall ratio
// (before ÷ now). The reference build works on copies of the stores of
// its own (NAME.db.before, made the first time), as this build may migrate
// them to a schema an older build refuses.
//
//	GOLDTRACE_BENCH_BEFORE=/tmp/gt-main go test ./cmd/goldtrace -run XXX -bench WaitCLI -benchtime 3x
//
// $GOLDTRACE_WAIT_BENCH_DIR keeps the generated data between runs (about
// 1.8 GB with the sample store; the sample sub-benchmark needs 180k traces
// and is skipped unless $GOLDTRACE_WAIT_BENCH_SAMPLE is set).
func BenchmarkWaitCLI(b *testing.B) {
	_, dir, bin := cliBenchSetup(b, "GOLDTRACE_WAIT_BENCH_DIR")
	before := os.Getenv("GOLDTRACE_BENCH_BEFORE")
	labeled := waitBenchData(b, dir, bin)
	// each gives the path of db for run i: the before build (even runs)
	// gets a copy of its own, made once, since this build may migrate the
	// store to a schema an older build refuses.
	each := func(db string) func(i int) string {
		if before == "" {
			return func(int) string { return db }
		}
		ref := db + ".before"
		if _, err := os.Stat(ref); err != nil {
			copyDB(b, db, ref)
		}
		return func(i int) string {
			if i%2 == 0 {
				return ref
			}
			return db
		}
	}
	compare := func(b *testing.B, prep func(i int), args func(i int) []string) {
		var now, ref run
		for i := 0; i < b.N; i++ {
			if before != "" {
				prep(2 * i)
				r := timed(b, before, args(2*i)...)
				ref.wall, ref.cpu, ref.rssMB = ref.wall+r.wall, ref.cpu+r.cpu, max(ref.rssMB, r.rssMB)
			}
			prep(2*i + 1)
			r := timed(b, bin, args(2*i+1)...)
			now.wall, now.cpu, now.rssMB = now.wall+r.wall, now.cpu+r.cpu, max(now.rssMB, r.rssMB)
		}
		n := float64(b.N)
		b.ReportMetric(now.wall.Seconds()/n, "now-s")
		b.ReportMetric(now.cpu.Seconds()/n, "now-cpu-s")
		b.ReportMetric(now.rssMB, "now-rss-MB")
		if before != "" {
			b.ReportMetric(ref.wall.Seconds()/n, "before-s")
			b.ReportMetric(ref.cpu.Seconds()/n, "before-cpu-s")
			b.ReportMetric(ref.rssMB, "before-rss-MB")
			b.ReportMetric(ref.wall.Seconds()/now.wall.Seconds(), "x-faster")
		}
	}
	b.Run("labels_import_50k", func(b *testing.B) {
		db := filepath.Join(dir, "li.db")
		labels := filepath.Join(dir, "labels-a.jsonl")
		// Each build's runs start from a copy of sampled.db it has brought
		// to its own schema (untimed), so a schema upgrade is not counted
		// as the import's time (the older build's was, which made it look
		// twice as slow).
		upgraded := func(build string) string {
			src := filepath.Join(b.TempDir(), "sampled.db")
			copyDB(b, filepath.Join(dir, "sampled.db"), src)
			timed(b, build, "--db", src, "status", "--as", "carol")
			return src
		}
		src, srcBefore := upgraded(bin), ""
		if before != "" {
			srcBefore = upgraded(before)
		}
		compare(b, func(i int) {
			if before != "" && i%2 == 0 {
				copyDB(b, srcBefore, db)
				return
			}
			copyDB(b, src, db)
		},
			func(int) []string {
				return []string{"--db", db, "labels", "import", labels, "--as", "carol", "--for-others"}
			})
	})
	b.Run("labels_import_50k_pg", func(b *testing.B) {
		// The same project and labels on PostgreSQL (GOLDTRACE_TEST_PG):
		// each run imports into a copy of sampled.db made by goldtrace
		// copy, untimed.
		if os.Getenv(pgtest.Env) == "" {
			b.Skip(pgtest.Env + " is not set")
		}
		labels := filepath.Join(dir, "labels-a.jsonl")
		// copy reads a copy of sampled.db (the log it leaves beside the
		// file it read would fail the SQLite run's copyDB), one for each
		// build: copy opens its source read-only, so each build first
		// brings its copy to its own schema, and copies it with its own
		// schema (an older build refuses a newer one's).
		srcOf := func(exe, name string) string {
			src := filepath.Join(b.TempDir(), name)
			copyDB(b, filepath.Join(dir, "sampled.db"), src)
			timed(b, exe, "--db", src, "status", "--as", "carol")
			return src
		}
		src, srcBefore := srcOf(bin, "sampled.db"), ""
		if before != "" {
			srcBefore = srcOf(before, "sampled-before.db")
		}
		var dsn string
		compare(b, func(i int) {
			dsn = pgtest.DSN(b)
			if before != "" && i%2 == 0 {
				timed(b, before, "copy", "--from", srcBefore, "--to", dsn)
				return
			}
			timed(b, bin, "copy", "--from", src, "--to", dsn)
		}, func(int) []string {
			return []string{"--db", dsn, "labels", "import", labels, "--as", "carol", "--for-others"}
		})
	})
	b.Run("export_50k", func(b *testing.B) {
		out := filepath.Join(dir, "out")
		db := each(labeled)
		compare(b, func(int) { os.RemoveAll(out) },
			func(i int) []string {
				// A new name each time: an existing one would re-write its files.
				return []string{"--db", db(i), "export", fmt.Sprintf("e%d-%d", time.Now().UnixNano(), i), "--as", "carol", "--out", out}
			})
	})
	b.Run("export_again_50k", func(b *testing.B) {
		// Writing the files of a stored version again (NAME@vN).
		db := each(labeled)
		// Each build's store gets its own version again@v1 (once; untimed),
		// written to a directory of its own.
		if before != "" {
			timed(b, before, "--db", db(0), "export", "again", "--as", "carol", "--out", b.TempDir())
		}
		timed(b, bin, "--db", db(1), "export", "again", "--as", "carol", "--out", b.TempDir())
		out := filepath.Join(dir, "out")
		compare(b, func(int) { os.RemoveAll(out) },
			func(i int) []string { return []string{"--db", db(i), "export", "again@v1", "--out", out} })
	})
	b.Run("status_lead", func(b *testing.B) {
		db := each(labeled)
		compare(b, func(int) {}, func(i int) []string { return []string{"--db", db(i), "status", "--as", "carol"} })
	})
	b.Run("check_100k", func(b *testing.B) {
		// The store of 100k labels with the versions export_50k left in it
		// (each ~296 MB of JSONL, hashed by check).
		db := each(labeled)
		compare(b, func(int) {}, func(i int) []string { return []string{"--db", db(i), "check"} })
	})
	b.Run("check_1gb", func(b *testing.B) {
		if os.Getenv("GOLDTRACE_WAIT_BENCH_SAMPLE") == "" {
			b.Skip("set GOLDTRACE_WAIT_BENCH_SAMPLE to build the 1 GB store")
		}
		big := each(waitBenchBig(b, dir, bin))
		compare(b, func(int) {}, func(i int) []string { return []string{"--db", big(i), "check"} })
	})
	b.Run("sample_500_by_tool", func(b *testing.B) {
		if os.Getenv("GOLDTRACE_WAIT_BENCH_SAMPLE") == "" {
			b.Skip("set GOLDTRACE_WAIT_BENCH_SAMPLE to build the 1 GB store")
		}
		big := each(waitBenchBig(b, dir, bin))
		compare(b, func(int) {}, func(i int) []string {
			return []string{"--db", big(i), "sample", "--n", "500", "--by", "tool", "--reviewers", "alice,bob",
				"--seed", fmt.Sprint(i + 1), "--batch", fmt.Sprintf("s%d-%d", time.Now().UnixNano(), i)}
		})
	})
}

// waitBenchData builds (once per data directory) sampled.db: 25k traces
// with reviewers alice and bob and lead carol, a batch of 50k items, two
// reviewers each; labels-a.jsonl: both labels of the batch's first 25k
// items, one in ten disagreeing; and labeled.db: sampled.db with all 100k
// labels in agreement (50k gold). It returns labeled.db's path.
func waitBenchData(b *testing.B, dir, bin string) string {
	labeled := filepath.Join(dir, "labeled.db")
	if _, err := os.Stat(labeled); err == nil {
		return labeled
	}
	traces := filepath.Join(dir, "traces-25000.jsonl")
	sampled := filepath.Join(dir, "sampled.db")
	os.Remove(sampled)
	timed(b, bin, "demo", "--write-traces", "25000", traces, "--seed", "30")
	timed(b, bin, "--db", sampled, "import", traces)
	os.Remove(traces)
	for _, u := range [][]string{{"alice", "reviewer"}, {"bob", "reviewer"}, {"carol", "lead"}} {
		timed(b, bin, "--db", sampled, "users", "add", u[0], "--role", u[1])
	}
	timed(b, bin, "--db", sampled, "sample", "--n", "50000", "--reviewers", "alice,bob", "--seed", "3", "--batch", "b1")
	all := filepath.Join(dir, "labels-all.jsonl")
	writeBenchLabels(b, sampled, filepath.Join(dir, "labels-a.jsonl"), all)
	copyDB(b, sampled, labeled+".tmp")
	timed(b, bin, "--db", labeled+".tmp", "labels", "import", all, "--as", "carol", "--for-others")
	timed(b, bin, "--db", labeled+".tmp", "check")
	if err := os.Rename(labeled+".tmp", labeled); err != nil {
		b.Fatal(err)
	}
	return labeled
}

// writeBenchLabels writes every assignment of batch b1 as a label: the
// observed calls when they are a valid answer, else no call. half gets the
// first 25k items' labels with bob answering differently on every tenth;
// all gets every label, in agreement.
func writeBenchLabels(b *testing.B, db, half, all string) {
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var items []string
	for _, r := range []string{"alice"} {
		q, err := st.Queue(ctx, r, "b1")
		if err != nil {
			b.Fatal(err)
		}
		for _, a := range q {
			items = append(items, a.ItemID)
		}
	}
	hf, err := os.Create(half)
	if err != nil {
		b.Fatal(err)
	}
	af, err := os.Create(all)
	if err != nil {
		b.Fatal(err)
	}
	hw, aw := bufio.NewWriter(hf), bufio.NewWriter(af)
	at := time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)
	for n, id := range items {
		it, err := st.Item(ctx, id)
		if err != nil {
			b.Fatal(err)
		}
		l := review.Label{Item: id, Decision: review.DecisionNoCall, Calls: []review.LabelCall{}, Rationale: "The context answers it.",
			Seconds: 20, SubmittedAt: at}
		if len(it.Observed) > 0 {
			c := review.Label{Item: id, Decision: review.DecisionCall, Rationale: "The observed call is right.", Seconds: 30, SubmittedAt: at}
			for _, o := range it.Observed {
				c.Calls = append(c.Calls, review.LabelCall{Tool: o.Name, Args: o.Arguments})
			}
			if len(review.ValidateLabel(c, it.Tools)) == 0 {
				l = c
			}
		}
		for _, r := range []string{"alice", "bob"} {
			l.Reviewer = r
			line, err := json.Marshal(l)
			if err != nil {
				b.Fatal(err)
			}
			line = append(line, '\n')
			aw.Write(line)
			if n < len(items)/2 {
				if r == "bob" && n%10 == 0 {
					d := l
					d.Decision, d.Calls, d.Rationale = review.DecisionNoCall, []review.LabelCall{}, "Nothing to look up."
					if l.Decision == review.DecisionNoCall {
						d.Decision, d.Calls = review.DecisionCall, []review.LabelCall{{Tool: it.Tools[0].Name, Args: json.RawMessage(`{}`)}}
						if len(review.ValidateLabel(d, it.Tools)) > 0 {
							d = l // keep the agreement: no valid other answer at hand
						}
					}
					if line, err = json.Marshal(d); err != nil {
						b.Fatal(err)
					}
					line = append(line, '\n')
				}
				hw.Write(line)
			}
		}
	}
	for _, w := range []*bufio.Writer{hw, aw} {
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	hf.Close()
	af.Close()
}

// waitBenchBig imports 180k demo traces (about 1 GB, 531k candidates) once
// into big.db, with reviewers alice and bob.
func waitBenchBig(b *testing.B, dir, bin string) string {
	big := filepath.Join(dir, "big.db")
	if _, err := os.Stat(big); err == nil {
		return big
	}
	traces := filepath.Join(dir, "traces-180000.jsonl")
	timed(b, bin, "demo", "--write-traces", "180000", traces, "--seed", "15")
	timed(b, bin, "--db", big+".tmp", "import", traces)
	os.Remove(traces)
	for _, u := range []string{"alice", "bob"} {
		timed(b, bin, "--db", big+".tmp", "users", "add", u, "--role", "reviewer")
	}
	if err := os.Rename(big+".tmp", big); err != nil {
		b.Fatal(err)
	}
	return big
}

// copyDB copies a closed, checkpointed database file to dst (removing
// dst's log files).
func copyDB(b *testing.B, src, dst string) {
	for _, s := range []string{"", "-wal", "-shm"} {
		os.Remove(dst + s)
	}
	in, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	if strings.HasSuffix(src, ".db") {
		if _, err := os.Stat(src + "-wal"); err == nil {
			b.Fatalf("%s has a write-ahead log: close it first", src)
		}
	}
}
