package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
)

// BenchmarkServeStatusExec is what one `ssh HOST -- status` costs a serve
// process: a lead's status exec over one SSH connection, on the replica
// benchmark's project (32 reviewers, 800 items, half of them labeled by
// both reviewers), once with the data unchanged between execs (cached)
// and once with a draft saved before each (the status is read afresh, as
// under a team labeling). It reports the server's CPU per exec (user +
// system, from /proc) and the wall time, for a SQLite project and, with
// GOLDTRACE_TEST_PG, a PostgreSQL one; with GOLDTRACE_BENCH_BEFORE naming
// another build, that build is measured first on the same project.
//
//	GOLDTRACE_TEST_PG=postgres://… go test ./cmd/goldtrace -run '^$' -bench BenchmarkServeStatusExec -benchtime=200x
func BenchmarkServeStatusExec(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	names := make([]string, 32)
	for i := range names {
		names[i] = fmt.Sprintf("r%02d", i+1)
	}
	engines := []string{"sqlite"}
	if os.Getenv(pgtest.Env) != "" {
		engines = append(engines, "postgres")
	}
	builds := []struct{ name, bin string }{{"", bin}}
	if before := os.Getenv("GOLDTRACE_BENCH_BEFORE"); before != "" {
		builds = append([]struct{ name, bin string }{{"before-", before}}, builds...)
	}
	for _, engine := range engines {
		b.Run(engine, func(b *testing.B) {
			ts := &teamServer{t: b, dir: b.TempDir()}
			if engine == "postgres" {
				ts.db = pgtest.DSN(b)
			}
			if len(builds) > 1 {
				ts.seedBin = builds[0].bin // the older schema; the newer build upgrades it
			}
			seedTeam(b, ts, 450, 800, names)
			drafts := labelHalf(b, ts, names)
			st, err := store.Open(context.Background(), ts.db)
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			for _, build := range builds {
				r := *ts
				proc := startServeProcess(b, build.bin, &r)
				c, err := r.dial(gossh.PublicKeys(ts.keys["carol"]))
				if err != nil {
					b.Fatal(err)
				}
				for _, fresh := range []bool{false, true} {
					what := "cached"
					if fresh {
						what = "fresh"
					}
					if err := execStatus(c); err != nil { // warm up
						b.Fatal(err)
					}
					var took time.Duration
					cpu0 := cpuTime(proc.Process.Pid)
					for i := range b.N {
						if fresh {
							a := drafts[i%len(drafts)]
							if err := st.SaveDraft(context.Background(), a.ItemID, a.Reviewer, []byte(`{"n":`+fmt.Sprint(i)+`}`), 1); err != nil {
								b.Fatal(err)
							}
						}
						t0 := time.Now()
						if err := execStatus(c); err != nil {
							b.Fatal(err)
						}
						took += time.Since(t0)
					}
					cpu := cpuTime(proc.Process.Pid) - cpu0
					p := build.name + what + "_"
					b.ReportMetric(ms(cpu)/float64(b.N), p+"cpu_ms/exec")
					b.ReportMetric(ms(took)/float64(b.N), p+"wall_ms/exec")
				}
				c.Close()
				proc.Process.Signal(os.Interrupt)
				proc.Wait()
			}
			b.Logf("load average %s", loadAverage())
		})
	}
}

// labelHalf has both reviewers of half of each reviewer's queue submit a
// label (one in ten of the items disputed), through labels import, and
// returns the assignments still open.
func labelHalf(b *testing.B, ts *teamServer, names []string) (open []store.Assignment) {
	st, err := store.Open(context.Background(), ts.db)
	if err != nil {
		b.Fatal(err)
	}
	seen := map[string]int{}
	var lines []string
	for _, n := range names {
		q, err := st.Queue(context.Background(), n, "")
		if err != nil {
			b.Fatal(err)
		}
		open = append(open, q[len(q)/2:]...)
		for _, it := range q[:len(q)/2] {
			decision := "no_call"
			if seen[it.ItemID]++; seen[it.ItemID] == 2 && len(lines)%10 == 0 {
				decision = "call"
			}
			calls := "[]"
			if decision == "call" {
				calls = `[{"tool":"get_order_status","args":{}}]`
			}
			lines = append(lines, lblLine(it.ItemID, n, decision, calls))
		}
	}
	st.Close()
	if _, errOut, code := runSeed(ts, strings.Join(lines, "\n")+"\n", "labels", "import", "-", "--as", "carol", "--for-others", "--skip-invalid"); code != 0 {
		b.Fatalf("labels import: %s", errOut)
	}
	return open
}
