package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// BenchmarkImportEnginesCLI imports the same synthetic traces with the
// real binary into a SQLite file and into a PostgreSQL database
// (GOLDTRACE_TEST_PG's server) in the same run: wall time, MB/s and peak
// RSS of each (PostgreSQL's own memory and CPU are the server's, not in
// the RSS). The 1 GB case is for the closing note:
//
//	go test ./cmd/goldtrace -run XXX -bench ImportEnginesCLI/1GB -benchtime 1x
//
// $GOLDTRACE_IMPORT_BENCH_DIR keeps the generated files between runs.
func BenchmarkImportEnginesCLI(b *testing.B) {
	_, dir, bin := cliBenchSetup(b, "GOLDTRACE_IMPORT_BENCH_DIR")
	for _, bc := range []struct {
		name   string
		traces int // about 5.6 kB each
	}{{"100MB", 18_000}, {"1GB", 180_000}} {
		b.Run(bc.name, func(b *testing.B) {
			in := filepath.Join(dir, fmt.Sprintf("traces-%d.jsonl", bc.traces))
			if _, err := os.Stat(in); err != nil {
				timed(b, bin, "demo", "--write-traces", fmt.Sprint(bc.traces), in, "--seed", "15")
			}
			fi, err := os.Stat(in)
			if err != nil {
				b.Fatal(err)
			}
			mb := float64(fi.Size()) / 1e6
			b.SetBytes(fi.Size())
			var lite, pg run
			for i := 0; i < b.N; i++ {
				dsn := pgtest.DSN(b)
				timed(b, bin, "--db", dsn, "init")
				l := timed(b, bin, "--db", filepath.Join(b.TempDir(), "gt.db"), "import", in)
				p := timed(b, bin, "--db", dsn, "import", in)
				lite.wall, pg.wall = lite.wall+l.wall, pg.wall+p.wall
				lite.cpu, pg.cpu = lite.cpu+l.cpu, pg.cpu+p.cpu
				lite.rssMB, pg.rssMB = max(lite.rssMB, l.rssMB), max(pg.rssMB, p.rssMB)
			}
			n := float64(b.N)
			b.ReportMetric(lite.wall.Seconds()/n, "sqlite-s")
			b.ReportMetric(mb/(lite.wall.Seconds()/n), "sqlite-MB/s")
			b.ReportMetric(lite.cpu.Seconds()/n, "sqlite-cpu-s")
			b.ReportMetric(lite.rssMB, "sqlite-rss-MB")
			b.ReportMetric(pg.wall.Seconds()/n, "pg-s")
			b.ReportMetric(mb/(pg.wall.Seconds()/n), "pg-MB/s")
			b.ReportMetric(pg.cpu.Seconds()/n, "pg-client-cpu-s")
			b.ReportMetric(pg.rssMB, "pg-rss-MB")
		})
	}
}

// BenchmarkCopyCLI copies a project of 50,000 labels (the demo's, with
// one exported version) from SQLite to PostgreSQL and back to SQLite with
// the real binary: the time of each copy, its check included (every
// version byte-identical, the gold building the same records).
//
//	go test ./cmd/goldtrace -run XXX -bench CopyCLI -benchtime 1x
func BenchmarkCopyCLI(b *testing.B) {
	_, dir, bin := cliBenchSetup(b, "GOLDTRACE_COPY_BENCH_DIR")
	project := filepath.Join(dir, "copy-50k")
	db := filepath.Join(project, "goldtrace.db")
	if _, err := os.Stat(db); err != nil {
		if err := os.MkdirAll(project, 0o755); err != nil {
			b.Fatal(err)
		}
		// Bob labels all 25,000 items, alice too: 50,000 labels.
		timed(b, bin, "demo", "--dir", project, "--no-tui", "--traces", "10000", "--batch-items", "25000", "--prelabeled", "25000", "--seed", "3")
		timed(b, bin, "--db", db, "export", "support", "--as", "carol", "--out", filepath.Join(project, "out"), "--allow-partial")
	}
	var there, back run
	for i := 0; i < b.N; i++ {
		dsn := pgtest.DSN(b)
		t := timed(b, bin, "copy", "--from", db, "--to", dsn)
		r := timed(b, bin, "copy", "--from", dsn, "--to", filepath.Join(b.TempDir(), "back.db"))
		for _, out := range [][]byte{t.out, r.out} {
			if !strings.Contains(string(out), "checked support@v1:") || !strings.Contains(string(out), "checked the gold:") {
				b.Fatalf("copy did not check the version:\n%s", out)
			}
		}
		if i == 0 {
			b.Logf("SQLite → PostgreSQL:\n%sPostgreSQL → SQLite:\n%s", t.out, r.out)
		}
		there.wall, back.wall = there.wall+t.wall, back.wall+r.wall
		there.rssMB, back.rssMB = max(there.rssMB, t.rssMB), max(back.rssMB, r.rssMB)
	}
	n := float64(b.N)
	b.ReportMetric(there.wall.Seconds()/n, "to-pg-s")
	b.ReportMetric(back.wall.Seconds()/n, "to-sqlite-s")
	b.ReportMetric(there.rssMB, "to-pg-rss-MB")
	b.ReportMetric(back.rssMB, "to-sqlite-rss-MB")
}
