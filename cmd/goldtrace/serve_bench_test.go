package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/server"
	"github.com/goldtrace/goldtrace/store"
)

// BenchmarkServe is issue 12's load test, run against the real binary
// (goldtrace serve in its own process, so its RSS is the server's alone):
// 32 reviewers, each in an SSH terminal session, label 50 items each by
// typing into the label screen (enter picks "(no tool)", a six-letter
// rationale is typed key by key, ctrl+s submits), while 8 exec clients read
// `status` in a loop. It reports labels lost and errors (both must be 0),
// keystroke-to-frame latency (a key written until the next bytes of screen
// arrive), submit latency (ctrl+s until the next item's counter is on
// screen), and the server's peak RSS.
//
//	go test ./cmd/goldtrace -run '^$' -bench BenchmarkServe -benchtime=1x
func BenchmarkServe(b *testing.B) {
	const reviewers, perReviewer, execClients = 32, 50, 8
	bin := filepath.Join(b.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	names := make([]string, reviewers)
	for i := range names {
		names[i] = fmt.Sprintf("r%02d", i+1)
	}
	b.ResetTimer()
	for range b.N {
		before := loadAverage()
		res := runServeLoad(b, bin, names, perReviewer, execClients)
		b.ReportMetric(float64(res.lost), "labels_lost")
		b.ReportMetric(float64(res.errors), "errors")
		b.ReportMetric(ms(percentile(res.frames, 50)), "frame_p50_ms")
		b.ReportMetric(ms(percentile(res.frames, 99)), "frame_p99_ms")
		b.ReportMetric(ms(percentile(res.submits, 50)), "submit_p50_ms")
		b.ReportMetric(ms(percentile(res.submits, 99)), "submit_p99_ms")
		b.ReportMetric(float64(res.rssKB)/1024, "server_peak_rss_MB")
		b.ReportMetric(res.cpu.Seconds(), "server_cpu_s")
		b.ReportMetric(float64(res.statusRuns), "status_execs")
		b.Logf("%d reviewers × %d labels in %s: %d labels lost, %d errors (first: %v), %d status execs; frame p50 %.1f ms p99 %.1f ms (%d keys); submit p50 %.1f ms p99 %.1f ms; server peak RSS %.0f MB, CPU %.1f s; load average %s before, %s after (the machine is shared: compare runs made side by side)",
			reviewers, perReviewer, res.took.Round(time.Millisecond), res.lost, res.errors, res.firstErr, res.statusRuns,
			ms(percentile(res.frames, 50)), ms(percentile(res.frames, 99)), len(res.frames),
			ms(percentile(res.submits, 50)), ms(percentile(res.submits, 99)), float64(res.rssKB)/1024, res.cpu.Seconds(), before, loadAverage())
	}
}

type loadResult struct {
	lost, errors, statusRuns int
	firstErr                 error
	frames, submits          []time.Duration
	rssKB                    int
	cpu                      time.Duration // the server's user+system time, start to end of the load
	took                     time.Duration
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func runServeLoad(b *testing.B, bin string, names []string, perReviewer, execClients int) loadResult {
	b.StopTimer()
	nItems := len(names) * perReviewer / 2 // two reviewers per item
	ts := &teamServer{t: b, dir: b.TempDir()}
	seedTeam(b, ts, nItems*2/5+50, nItems, names)
	// Every reviewer has exactly perReviewer items.
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

	srv := startServeProcess(b, bin, ts)
	walPeak := watchWAL(ts.db)
	defer walPeak()

	var (
		mu       sync.Mutex
		res      loadResult
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
			c, err := ts.dial(gossh.PublicKeys(ts.keys["carol"]))
			if err != nil {
				fail(fmt.Errorf("exec client: %w", err))
				return
			}
			defer c.Close()
			for !stop.Load() {
				if err := execStatus(c); err != nil {
					fail(err)
					return
				}
				statusOK.Add(1)
			}
		}()
	}
	cpu0 := cpuTime(srv.Process.Pid)
	b.StartTimer()
	start := time.Now()
	for _, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			frames, submits, err := labelSession(ts, n, perReviewer)
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
	defer b.StartTimer()
	stop.Store(true)
	ewg.Wait()
	res.statusRuns = int(statusOK.Load())
	res.rssKB = peakRSSKB(srv.Process.Pid)
	res.cpu = cpuTime(srv.Process.Pid) - cpu0

	st, err = store.Open(context.Background(), ts.db)
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

func execStatus(c *gossh.Client) error {
	sess, err := c.NewSession()
	if err != nil {
		return fmt.Errorf("status session: %w", err)
	}
	defer sess.Close()
	out, err := sess.CombinedOutput("status")
	if err != nil {
		return fmt.Errorf("status: %v: %s", err, out)
	}
	if !strings.Contains(string(out), "assignments") {
		return fmt.Errorf("status printed %q", out)
	}
	return nil
}

// frameWatcher is a terminal that tells when new screen bytes arrive.
type frameWatcher struct {
	mu   sync.Mutex
	buf  []byte
	seen chan struct{}
}

func (w *frameWatcher) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > 1<<16 {
		w.buf = append([]byte(nil), w.buf[len(w.buf)-1<<15:]...)
	}
	w.mu.Unlock()
	select {
	case w.seen <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *frameWatcher) contains(re *regexp.Regexp) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return re.Match(w.buf)
}

func (w *frameWatcher) reset() {
	w.mu.Lock()
	w.buf = w.buf[:0]
	w.mu.Unlock()
}

// waitFrame waits for screen bytes after now.
func (w *frameWatcher) waitFrame() error {
	select {
	case <-w.seen:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("no frame within 10s of a key")
	}
}

func (w *frameWatcher) waitFor(re *regexp.Regexp) error {
	deadline := time.After(20 * time.Second)
	for !w.contains(re) {
		select {
		case <-w.seen:
		case <-deadline:
			return fmt.Errorf("screen never showed %s", re)
		}
	}
	return nil
}

// labelSession labels n items as user through the label screen.
func labelSession(ts *teamServer, user string, n int) (frames, submits []time.Duration, err error) {
	c, err := ts.dial(gossh.PublicKeys(ts.keys[user]))
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	sess, err := c.NewSession()
	if err != nil {
		return nil, nil, err
	}
	defer sess.Close()
	if err := sess.RequestPty("xterm-256color", 24, 80, gossh.TerminalModes{}); err != nil {
		return nil, nil, err
	}
	w := &frameWatcher{seen: make(chan struct{}, 1)}
	in, err := sess.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	sess.Stdout, sess.Stderr = w, w
	if err := sess.Shell(); err != nil {
		return nil, nil, err
	}
	if err := w.waitFor(regexp.MustCompile(`Your label`)); err != nil {
		return nil, nil, err
	}
	key := func(k string) error {
		// Drain a frame already signalled, so the wait is for this key's.
		select {
		case <-w.seen:
		default:
		}
		t0 := time.Now()
		if _, err := in.Write([]byte(k)); err != nil {
			return err
		}
		if err := w.waitFrame(); err != nil {
			return err
		}
		frames = append(frames, time.Since(t0))
		return nil
	}
	for i := 1; i <= n; i++ {
		for _, k := range []string{"\r", "o", "k", " ", "l", "b", "l"} {
			if err := key(k); err != nil {
				return frames, submits, fmt.Errorf("item %d: %w", i, err)
			}
		}
		w.reset()
		t0 := time.Now()
		if _, err := in.Write([]byte("\x13")); err != nil {
			return frames, submits, err
		}
		next := regexp.MustCompile(`\b` + strconv.Itoa(i+1) + `/` + strconv.Itoa(n) + `\b`)
		if i == n {
			next = regexp.MustCompile(`(?i)done|nothing|no more|all \d+|` + strconv.Itoa(n) + `/` + strconv.Itoa(n))
		}
		if err := w.waitFor(next); err != nil {
			return frames, submits, fmt.Errorf("submit %d: %w", i, err)
		}
		submits = append(submits, time.Since(t0))
	}
	in.Write([]byte("\x03"))
	return frames, submits, nil
}

// cpuTime is a process's user plus system CPU time so far (0 when
// unknown): /proc/PID/stat fields 14 and 15, in clock ticks (100 a second
// on Linux).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; the fields after it are
	// counted from its closing parenthesis.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * time.Second / 100
}

// loadAverage is the machine's 1-minute load average ("?" when unknown).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// peakRSSKB is a process's peak resident set (VmHWM), 0 when unknown.
func peakRSSKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}

// startServeProcess runs goldtrace serve from bin on ts's project, in a
// process of its own (its RSS is the server's alone), with extra serve
// flags; ts.addr and ts.hostKey are set. It stops with the benchmark.
func startServeProcess(b *testing.B, bin string, ts *teamServer, flags ...string) *exec.Cmd {
	b.Helper()
	hostKeyPath := filepath.Join(ts.dir, "host_key")
	host, _, err := server.LoadHostKey(hostKeyPath)
	if err != nil {
		b.Fatal(err)
	}
	ts.hostKey = host.PublicKey()
	srv := exec.Command(bin, append([]string{"--db", ts.db, "serve", "--listen", "127.0.0.1:0", "--host-key", hostKeyPath}, flags...)...)
	stdout, _ := srv.StdoutPipe()
	srv.Stderr = nil
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		srv.Process.Signal(os.Interrupt)
		srv.Wait()
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if addr, ok := strings.CutPrefix(sc.Text(), "goldtrace serve: listening on "); ok {
			ts.addr = addr
			break
		}
	}
	if ts.addr == "" {
		b.Fatal("the server never said where it listens")
	}
	go func() { // keep draining the server's stdout
		for sc.Scan() {
		}
	}()
	return srv
}

// watchWAL samples the size of db's write-ahead log every 100 ms; the
// returned func stops and reports the largest seen (MB) on stderr.
func watchWAL(db string) (stop func()) {
	done := make(chan struct{})
	var peak atomic.Int64
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if fi, err := os.Stat(db + "-wal"); err == nil && fi.Size() > peak.Load() {
				peak.Store(fi.Size())
			}
		}
	}()
	return func() {
		close(done)
		fmt.Fprintf(os.Stderr, "WAL peak during the load: %.1f MB\n", float64(peak.Load())/(1<<20))
	}
}
