package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// BenchmarkServeReplicas is issue 25's load test: BenchmarkServe's load
// (32 reviewers typing 50 labels each into their label screens over SSH,
// 8 exec clients reading `status` in a loop) on a PostgreSQL project
// served by 2 goldtrace serve processes (reviewers and readers spread over
// them), then the same load on a SQLite project served by one, in the
// same run. It reports, for each, labels lost and errors (both must be
// 0), frame and submit latency, each replica's peak RSS and CPU, and
// PostgreSQL's CPU (its postmaster and backends). It needs
// GOLDTRACE_TEST_PG; run it on a cluster of its own for PostgreSQL's CPU
// to be goldtrace's alone. With GOLDTRACE_BENCH_BEFORE naming another
// build, that build runs each engine's load first, on a project of its own
// (before-… figures).
//
//	GOLDTRACE_TEST_PG=postgres://… go test ./cmd/goldtrace -run '^$' -bench BenchmarkServeReplicas -benchtime=1x
//
// GOLDTRACE_BENCH_REVIEWERS and GOLDTRACE_BENCH_READERS change the
// number of reviewers (a smoke run) and of status readers (0: what the
// reviewers cost alone, which the readers' loop otherwise blurs, as they
// run as often as the CPU lets them).
func BenchmarkServeReplicas(b *testing.B) {
	reviewers, perReviewer, execClients := 32, 50, 8
	if n, err := strconv.Atoi(os.Getenv("GOLDTRACE_BENCH_REVIEWERS")); err == nil && n > 1 {
		reviewers = n // a smaller smoke run
	}
	if n, err := strconv.Atoi(os.Getenv("GOLDTRACE_BENCH_READERS")); err == nil && n >= 0 {
		execClients = n // status readers: 0 shows what they cost reviewers
	}
	if os.Getenv(pgtest.Env) == "" {
		b.Skip(pgtest.Env + " is not set: this benchmark needs PostgreSQL")
	}
	bin := filepath.Join(b.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	names := make([]string, reviewers)
	for i := range names {
		names[i] = fmt.Sprintf("r%02d", i+1)
	}
	// GOLDTRACE_BENCH_BEFORE: another build runs the same load first, on
	// a project it makes itself (its own schema), reported as before-….
	builds := []struct{ name, bin string }{{"", bin}}
	if before := os.Getenv("GOLDTRACE_BENCH_BEFORE"); before != "" {
		builds = append([]struct{ name, bin string }{{"before-", before}}, builds...)
	}
	b.ResetTimer()
	for range b.N {
		for _, run := range []struct {
			engine   string
			replicas int
		}{{"postgres", 2}, {"sqlite", 1}} {
			for _, build := range builds {
				reportReplicaLoad(b, build.name, build.bin, run.engine, run.replicas, names, perReviewer, execClients)
			}
		}
	}
}

// reportReplicaLoad runs the load on engine with bin's serve replicas and
// reports it, each figure's name prefixed with name and the engine. A
// build with a name (another build's) makes its project itself.
func reportReplicaLoad(b *testing.B, name, bin, engine string, replicas int, names []string, perReviewer, execClients int) {
	db, seedBin := "", ""
	if engine == "postgres" {
		db = pgtest.DSN(b)
	}
	if name != "" {
		seedBin = bin
	}
	before := loadAverage()
	res := runReplicaLoad(b, bin, seedBin, db, replicas, names, perReviewer, execClients)
	p := name + engine + "_"
	b.ReportMetric(float64(res.lost), p+"labels_lost")
	b.ReportMetric(float64(res.errors), p+"errors")
	b.ReportMetric(ms(percentile(res.frames, 50)), p+"frame_p50_ms")
	b.ReportMetric(ms(percentile(res.frames, 99)), p+"frame_p99_ms")
	b.ReportMetric(ms(percentile(res.submits, 50)), p+"submit_p50_ms")
	b.ReportMetric(ms(percentile(res.submits, 99)), p+"submit_p99_ms")
	b.ReportMetric(float64(len(res.submits))/res.took.Seconds(), p+"labels_per_s")
	b.ReportMetric(float64(res.statusRuns)/res.took.Seconds(), p+"status_per_s")
	// What the readers wait (the report gate holds them back while
	// reviewers type): each status exec, from its session's opening to its
	// end.
	b.ReportMetric(ms(percentile(res.statusTimes, 50)), p+"status_p50_ms")
	b.ReportMetric(ms(percentile(res.statusTimes, 99)), p+"status_p99_ms")
	var rss []string
	var cpu time.Duration
	for i, kb := range res.replicaRSSKB {
		rss = append(rss, fmt.Sprintf("replica %d: peak RSS %.0f MB, CPU %.1f s", i+1, float64(kb)/1024, res.replicaCPU[i].Seconds()))
		cpu += res.replicaCPU[i]
	}
	b.ReportMetric(cpu.Seconds(), p+"replicas_cpu_s")
	pgCPU := "-"
	if engine == "postgres" {
		pgCPU = fmt.Sprintf("%.1f s", res.pgCPU.Seconds())
		b.ReportMetric(res.pgCPU.Seconds(), p+"server_cpu_s")
	}
	b.Logf("%s%s, %d replica(s): %d reviewers × %d labels in %s (%.0f labels/s): %d labels lost, %d errors (first: %v), %d status execs (%.0f/s); frame p50 %.1f ms p99 %.1f ms (%d keys); submit p50 %.1f ms p99 %.1f ms (%d submits); %s; PostgreSQL CPU %s; load average %s before, %s after",
		name, engine, replicas, len(names), perReviewer, res.took.Round(time.Millisecond), float64(len(res.submits))/res.took.Seconds(),
		res.lost, res.errors, res.firstErr, res.statusRuns, float64(res.statusRuns)/res.took.Seconds(),
		ms(percentile(res.frames, 50)), ms(percentile(res.frames, 99)), len(res.frames),
		ms(percentile(res.submits, 50)), ms(percentile(res.submits, 99)), len(res.submits),
		strings.Join(rss, "; "), pgCPU, before, loadAverage())
}

type replicaLoad struct {
	loadResult
	replicaRSSKB []int
	replicaCPU   []time.Duration
	pgCPU        time.Duration
	statusTimes  []time.Duration // each status exec's time
}

// runReplicaLoad seeds a project on db (a DSN; "" for a SQLite file),
// with seedBin when set (else in this process), serves it from replicas
// goldtrace serve processes, and runs the load.
func runReplicaLoad(b *testing.B, bin, seedBin, db string, replicas int, names []string, perReviewer, execClients int) replicaLoad {
	b.StopTimer()
	defer b.StartTimer()
	nItems := len(names) * perReviewer / 2
	ts := &teamServer{t: b, dir: b.TempDir(), db: db, seedBin: seedBin}
	seedTeam(b, ts, nItems*2/5+50, nItems, names)
	if seedBin == "" {
		// (Opening the project with this build would upgrade an older
		// build's schema.)
		st, err := store.Open(context.Background(), ts.db)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range names {
			q, err := st.Queue(context.Background(), n, "")
			if err != nil || len(q) != perReviewer {
				b.Fatalf("%s's queue: %d items, %v; want %d", n, len(q), err, perReviewer)
			}
		}
		st.Close()
	}
	rs := make([]*teamServer, replicas)
	procs := make([]*exec.Cmd, replicas)
	for i := range rs {
		r := *ts
		procs[i] = startServeProcess(b, bin, &r)
		rs[i] = &r
	}
	postmaster := 0
	if db != "" {
		postmaster = postmasterPID(b, db)
	}

	var (
		mu       sync.Mutex
		res      replicaLoad
		stop     atomic.Bool
		wg, ewg  sync.WaitGroup
		statusOK atomic.Int64
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		res.errors++
		if res.firstErr == nil {
			res.firstErr = err
		}
	}
	for i := 0; i < execClients; i++ {
		ewg.Add(1)
		go func() {
			defer ewg.Done()
			c, err := rs[i%replicas].dial(gossh.PublicKeys(ts.keys["carol"]))
			if err != nil {
				fail(fmt.Errorf("exec client: %w", err))
				return
			}
			defer c.Close()
			for !stop.Load() {
				t0 := time.Now()
				if err := execStatus(c); err != nil {
					fail(err)
					return
				}
				took := time.Since(t0)
				mu.Lock()
				res.statusTimes = append(res.statusTimes, took)
				mu.Unlock()
				statusOK.Add(1)
			}
		}()
	}
	cpu0 := make([]time.Duration, replicas)
	for i, p := range procs {
		cpu0[i] = cpuTime(p.Process.Pid)
	}
	pg0 := clusterCPU(postmaster)
	b.StartTimer()
	start := time.Now()
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames, submits, err := labelSession(rs[i%replicas], n, perReviewer)
			mu.Lock()
			res.frames = append(res.frames, frames...)
			res.submits = append(res.submits, submits...)
			mu.Unlock()
			if err != nil {
				fail(fmt.Errorf("%s: %w", n, err))
			}
		}()
	}
	wg.Wait()
	res.took = time.Since(start)
	b.StopTimer()
	stop.Store(true)
	ewg.Wait()
	res.statusRuns = int(statusOK.Load())
	res.pgCPU = clusterCPU(postmaster) - pg0
	for i, p := range procs {
		res.replicaRSSKB = append(res.replicaRSSKB, peakRSSKB(p.Process.Pid))
		res.replicaCPU = append(res.replicaCPU, cpuTime(p.Process.Pid)-cpu0[i])
	}

	st, err := store.Open(context.Background(), ts.db)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for _, n := range names {
		var got int
		st.Labels(context.Background(), store.LabelFilter{Reviewer: n}, func(review.Label) error { got++; return nil })
		res.lost += perReviewer - got
	}
	return res
}

// postmasterPID is the PostgreSQL server's main process on this machine
// (the parent of a backend), 0 when it is not a local process.
func postmasterPID(b *testing.B, dsn string) int {
	h, err := sql.Open("pgx", dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	var backend int
	if err := h.QueryRow(`SELECT pg_backend_pid()`).Scan(&backend); err != nil {
		b.Fatal(err)
	}
	f := procStat(backend)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// clusterCPU is the CPU time of a PostgreSQL server so far: its
// postmaster's, that of the backends it has reaped, and that of its live
// children.
func clusterCPU(postmaster int) time.Duration {
	if postmaster == 0 {
		return 0
	}
	ticks := 0
	add := func(f []string, fields ...int) {
		for _, i := range fields {
			if i < len(f) {
				n, _ := strconv.Atoi(f[i])
				ticks += n
			}
		}
	}
	add(procStat(postmaster), 11, 12, 13, 14)
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if f := procStat(pid); len(f) > 12 && f[1] == strconv.Itoa(postmaster) {
			add(f, 11, 12)
		}
	}
	return time.Duration(ticks) * time.Second / 100
}

// procStat is /proc/PID/stat's fields after the command name (state is
// [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14]).
func procStat(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
}
