//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkImportCLI measures `goldtrace import FILE` end to end (the built
// binary: reading, validating, encoding, writing, the final checkpoint) on a
// generated canonical JSONL of about 100 MB and 1 GB (synthetic support
// traces from `goldtrace demo --write-traces`), side by side in one run with
// Python parsing the same file line by line with json.loads. Reported:
// both wall times, MB/s, goldtrace's time over Python's (target ≤ 2.5, goal
// 2, by wall on a quiet machine; x-python-cpu is the same by CPU time, the
// ratio to trust on a loaded one), peak RSS (target < 200 MB), the store's
// size (database and log) and the bytes the import wrote, both per input
// byte (target store ≤ 0.5).
//
//	go test ./cmd/goldtrace -run XXX -bench ImportCLI/100MB -benchtime 1x
//
// $GOLDTRACE_IMPORT_BENCH_DIR keeps the generated files between runs;
// $GOLDTRACE_BENCH_BEFORE names another build to run alternately (before-s).
func BenchmarkImportCLI(b *testing.B) {
	py, dir, bin := cliBenchSetup(b, "GOLDTRACE_IMPORT_BENCH_DIR")
	const parse = `import json, sys
for line in open(sys.argv[1], "rb"):
    json.loads(line)
`
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
			size := float64(fi.Size())
			b.SetBytes(fi.Size())
			var pyT, goT, refT run
			var stored int64
			for i := 0; i < b.N; i++ {
				if before := os.Getenv("GOLDTRACE_BENCH_BEFORE"); before != "" {
					r := timed(b, before, "--db", filepath.Join(b.TempDir(), "gt.db"), "import", in)
					refT.wall, refT.cpu = refT.wall+r.wall, refT.cpu+r.cpu
				}
				db := filepath.Join(b.TempDir(), "gt.db")
				p := timed(b, py, "-c", parse, in)
				g := timed(b, bin, "--db", db, "import", in)
				pyT.wall, goT.wall = pyT.wall+p.wall, goT.wall+g.wall
				pyT.cpu, goT.cpu = pyT.cpu+p.cpu, goT.cpu+g.cpu
				goT.rssMB = max(goT.rssMB, g.rssMB)
				goT.written += g.written
				for _, suffix := range []string{"", "-wal"} {
					if fi, err := os.Stat(db + suffix); err == nil {
						stored += fi.Size()
					}
				}
			}
			n := float64(b.N)
			b.ReportMetric(pyT.wall.Seconds()/n, "python-s")
			b.ReportMetric(goT.wall.Seconds()/n, "goldtrace-s")
			b.ReportMetric(size/1e6/(goT.wall.Seconds()/n), "goldtrace-MB/s")
			b.ReportMetric(goT.wall.Seconds()/pyT.wall.Seconds(), "x-python")
			b.ReportMetric(goT.cpu.Seconds()/n, "goldtrace-cpu-s")
			b.ReportMetric(pyT.cpu.Seconds()/n, "python-cpu-s")
			b.ReportMetric(goT.cpu.Seconds()/pyT.cpu.Seconds(), "x-python-cpu") // on a loaded machine the ratio to trust
			b.ReportMetric(goT.rssMB, "rss-MB")
			if refT.wall > 0 {
				b.ReportMetric(refT.wall.Seconds()/n, "before-s")
				b.ReportMetric(refT.cpu.Seconds()/n, "before-cpu-s")
				b.ReportMetric(refT.wall.Seconds()/pyT.wall.Seconds(), "before-x-python")
				b.ReportMetric(refT.cpu.Seconds()/pyT.cpu.Seconds(), "before-x-python-cpu")
			}
			b.ReportMetric(float64(stored)/n/size, "store-B/in-B")
			b.ReportMetric(float64(goT.written)/n/size, "written-B/in-B")
		})
	}
}
