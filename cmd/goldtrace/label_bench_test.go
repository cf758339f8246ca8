//go:build linux

package main

import (
	"bytes"
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// BenchmarkLabelScreen measures the label screen the way a reviewer sees
// it: the built binary (`goldtrace label --as alice`) on a terminal of 80×24
// (a pty whose other end answers the terminal queries a terminal answers),
// from exec to the first frame (the help line, over "loading your queue…")
// and to the frame that shows the item (its conversation), and from a
// keystroke to the first bytes of the frame that shows it. Beside it in
// the same run, the floors: a trivial bubbletea program (testdata/ttyfloor:
// the same renderer and its frame tick) for both, and `cat` (the
// terminal's own echo) for the keystroke. Reported: medians, and the label
// screen over the bubbletea floor (targets: first frame < 50 ms, keystroke
// < 3 ms over the floor), and the CPU a loaded machine changes less than
// the times: the process's until its item showed (item-cpu-ms, read from
// its threads' schedstat then, so a little after) and that (user+sys) of
// a whole session (launch, item, the keystrokes, quit).
//
// $GOLDTRACE_LABEL_BENCH_DB names the store to open (a 1 GB import with a
// batch for alice, see docs); without it a 2,000-trace store is made.
//
// $GOLDTRACE_BENCH_BEFORE names another build (a base to compare with),
// run alternately with this one, on $GOLDTRACE_LABEL_BENCH_DB_BEFORE when
// set (a copy of the store at the older build's schema: an older build
// refuses a store this one migrated).
//
//	go test ./cmd/goldtrace -run XXX -bench LabelScreen -benchtime 5x
func BenchmarkLabelScreen(b *testing.B) {
	_, dir, bin := cliBenchSetup(b, "GOLDTRACE_LABEL_BENCH_DIR")
	floor := filepath.Join(dir, "ttyfloor")
	if out, err := exec.Command("go", "build", "-o", floor, "./testdata/ttyfloor").CombinedOutput(); err != nil {
		b.Fatalf("go build ttyfloor: %v\n%s", err, out)
	}
	db := os.Getenv("GOLDTRACE_LABEL_BENCH_DB")
	if db == "" {
		db = labelBenchStore(b, dir, bin)
	}
	const keys = 20 // keystrokes per launch: a letter, then backspace, alternately
	var label, labelItem, floorTea []time.Duration
	var labelKeys, teaKeys, catKeys []time.Duration
	before := os.Getenv("GOLDTRACE_BENCH_BEFORE") // another build, run alternately (before-…)
	var beforeFrame, beforeItem, beforeKeys []time.Duration
	var labelCPU, beforeCPU, labelItemCPU, beforeItemCPU []time.Duration
	// screen runs a label screen: its first frame, its item (and the CPU
	// it took to show it), its keys and the CPU of the whole session
	// (quitting included).
	dbBefore := cmp.Or(os.Getenv("GOLDTRACE_LABEL_BENCH_DB_BEFORE"), db)
	screen := func(bin, db string, frame, item, itemCPU, keyTimes, cpu *[]time.Duration) {
		t := startTTY(b, bin, "--db", db, "label", "--as", "alice")
		*frame = append(*frame, t.waitFor(b, "ctrl+s", 30*time.Second))
		*item = append(*item, t.waitFor(b, "Conversation", 30*time.Second))
		*itemCPU = append(*itemCPU, cpuSoFar(b, t.cmd.Process.Pid))
		*keyTimes = append(*keyTimes, t.keystrokes(b, keys)...)
		t.quit(b)
		*cpu = append(*cpu, t.cmd.ProcessState.UserTime()+t.cmd.ProcessState.SystemTime())
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if before != "" {
			screen(before, dbBefore, &beforeFrame, &beforeItem, &beforeItemCPU, &beforeKeys, &beforeCPU)
		}
		t := startTTY(b, floor)
		floorTea = append(floorTea, t.waitFor(b, "floor ready", 10*time.Second))
		teaKeys = append(teaKeys, t.keystrokes(b, keys)...)
		t.quit(b)

		screen(bin, db, &label, &labelItem, &labelItemCPU, &labelKeys, &labelCPU)

		t = startTTY(b, "cat")
		catKeys = append(catKeys, t.keystrokes(b, keys)...)
		t.quit(b)
	}
	b.StopTimer()
	ms := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1000
	}
	b.ReportMetric(ms(label), "first-frame-ms")
	b.ReportMetric(ms(labelItem), "item-ms")
	b.ReportMetric(ms(labelItemCPU), "item-cpu-ms")
	b.ReportMetric(ms(labelCPU), "session-cpu-ms")
	b.ReportMetric(ms(floorTea), "floor-first-frame-ms")
	b.ReportMetric(ms(labelKeys), "key-ms")
	b.ReportMetric(ms(teaKeys), "floor-key-ms")
	b.ReportMetric(ms(catKeys), "cat-key-ms")
	b.ReportMetric(ms(labelKeys)-ms(teaKeys), "key-over-floor-ms")
	b.ReportMetric(float64(len(labelKeys)), "keys")
	if before != "" {
		b.ReportMetric(ms(beforeFrame), "before-first-frame-ms")
		b.ReportMetric(ms(beforeItem), "before-item-ms")
		b.ReportMetric(ms(beforeItemCPU), "before-item-cpu-ms")
		b.ReportMetric(ms(beforeCPU), "before-session-cpu-ms")
		b.ReportMetric(ms(beforeKeys), "before-key-ms")
	}
}

// cpuSoFar is the CPU time process pid has run so far: the sum of its
// threads' time on a CPU (/proc/PID/task/*/schedstat, in nanoseconds; a
// thread that has ended is not counted, and a Go program keeps its
// threads).
func cpuSoFar(b *testing.B, pid int) time.Duration {
	b.Helper()
	stats, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(stats) == 0 {
		b.Fatalf("schedstat of %d: %v", pid, err)
	}
	var sum time.Duration
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended since
		}
		var ns int64
		if _, err := fmt.Sscan(string(data), &ns); err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		sum += time.Duration(ns)
	}
	return sum
}

// labelBenchStore imports 2,000 synthetic traces into a store in dir and
// samples a batch for alice and bob.
func labelBenchStore(b *testing.B, dir, bin string) string {
	db := filepath.Join(dir, "label.db")
	if _, err := os.Stat(db); err == nil {
		return db
	}
	traces := filepath.Join(dir, "label-traces.jsonl")
	for _, args := range [][]string{
		{"demo", "--write-traces", "2000", traces, "--seed", "15"},
		{"--db", db, "import", traces},
		{"--db", db, "users", "add", "alice", "--role", "reviewer"},
		{"--db", db, "users", "add", "bob", "--role", "reviewer"},
		{"--db", db, "sample", "--n", "200", "--seed", "1", "--reviewers", "alice,bob"},
	} {
		if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
			b.Fatalf("goldtrace %v: %v\n%s", args, err, out)
		}
	}
	return db
}

// tty is a program running on a pty of 80×24 whose output is collected as
// it comes, each read stamped.
type tty struct {
	cmd   *exec.Cmd
	pty   *os.File
	start time.Time
	mu    sync.Mutex
	out   []byte
	more  chan struct{} // a signal per read
	done  chan struct{}
}

func startTTY(b *testing.B, name string, args ...string) *tty {
	b.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color", "COLORTERM=truecolor")
	t := &tty{cmd: cmd, more: make(chan struct{}, 1), done: make(chan struct{})}
	t.start = time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		b.Fatal(err)
	}
	t.pty = f
	go t.read()
	return t
}

// read collects the output and answers what a terminal answers: the
// background colour (OSC 11) and the cursor position (DSR).
func (t *tty) read() {
	defer close(t.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := t.pty.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			if bytes.Contains(chunk, []byte("\x1b]11;?")) {
				t.pty.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
			}
			if bytes.Contains(chunk, []byte("\x1b[6n")) {
				t.pty.Write([]byte("\x1b[24;1R"))
			}
			t.mu.Lock()
			t.out = append(t.out, chunk...)
			t.mu.Unlock()
			select {
			case t.more <- struct{}{}:
			default:
			}
		}
		if err != nil {
			return
		}
	}
}

// waitFor returns how long after the start text first showed.
func (t *tty) waitFor(b *testing.B, text string, limit time.Duration) time.Duration {
	b.Helper()
	deadline := time.After(limit)
	for {
		t.mu.Lock()
		found := bytes.Contains(t.out, []byte(text))
		t.mu.Unlock()
		if found {
			return time.Since(t.start)
		}
		select {
		case <-t.more:
		case <-deadline:
			t.mu.Lock()
			defer t.mu.Unlock()
			b.Fatalf("%s never showed %q:\n%q", t.cmd.Path, text, t.out)
		}
	}
}

// keystrokes types n keys (a letter, then backspace, alternately), each
// once the screen has been quiet for a while and at a random point of the
// renderer's frame tick (a fixed pause would always land at the same
// point, just after a tick), and returns how long each took to bring
// output.
func (t *tty) keystrokes(b *testing.B, n int) []time.Duration {
	b.Helper()
	var out []time.Duration
	for i := 0; i < n; i++ {
		t.quiet(100 * time.Millisecond)
		time.Sleep(time.Duration(rand.Int64N(int64(20 * time.Millisecond))))
		key := []byte("o")
		if i%2 == 1 {
			key = []byte{0x7f}
		}
		t.mu.Lock()
		mark := len(t.out)
		t.mu.Unlock()
		start := time.Now()
		if _, err := t.pty.Write(key); err != nil {
			b.Fatal(err)
		}
		deadline := time.After(5 * time.Second)
		for {
			t.mu.Lock()
			got := len(t.out) > mark
			t.mu.Unlock()
			if got {
				break
			}
			select {
			case <-t.more:
			case <-deadline:
				b.Fatalf("%s: no output for keystroke %d", t.cmd.Path, i)
			}
		}
		out = append(out, time.Since(start))
	}
	return out
}

// quiet waits until no output has come for d.
func (t *tty) quiet(d time.Duration) {
	for {
		select {
		case <-t.more:
		case <-time.After(d):
			return
		}
	}
}

// quit sends ctrl+c (twice, for a screen that asks) and waits for the
// program to end.
func (t *tty) quit(b *testing.B) {
	b.Helper()
	t.pty.Write([]byte{3})
	ended := make(chan error, 1)
	go func() { ended <- t.cmd.Wait() }()
	select {
	case <-ended:
	case <-time.After(2 * time.Second):
		t.pty.Write([]byte{3})
		select {
		case <-ended:
		case <-time.After(10 * time.Second):
			t.cmd.Process.Kill()
			<-ended
			b.Logf("%s did not quit on ctrl+c", t.cmd.Path)
		}
	}
	t.pty.Close()
	<-t.done
}
