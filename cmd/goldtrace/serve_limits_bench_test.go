package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// The front door's limits under attack, against the real binary in its own
// process (issue 23):
//
//	go test ./cmd/goldtrace -run '^$' -bench 'BenchmarkServe(IdleFlood|HugePTY|LongLine)' -benchtime=1x

func buildBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// rssKB is a process's resident set now (VmRSS), 0 when unknown.
func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}

// BenchmarkServeIdleFlood: 2,000 TCP connections that never start the SSH
// handshake are held open (and re-opened as the server closes them) while
// a reviewer runs whoami over SSH 100 times; reports its p50/p99.
func BenchmarkServeIdleFlood(b *testing.B) {
	bin := buildBinary(b)
	ts := &teamServer{t: b, dir: b.TempDir()}
	seedTeam(b, ts, 10, 2, []string{"alice", "bob"})
	srv := startServeProcess(b, bin, ts)
	for range b.N {
		var idle []net.Conn
		for range 2000 {
			c, err := net.Dial("tcp", ts.addr)
			if err != nil {
				b.Fatalf("idle connection %d: %v", len(idle), err)
			}
			idle = append(idle, c)
		}
		stop := make(chan struct{})
		go func() { // keep 2,000 open: re-open what the server closes
			buf := make([]byte, 1)
			for {
				for i, c := range idle {
					select {
					case <-stop:
						return
					default:
					}
					c.SetReadDeadline(time.Now().Add(time.Millisecond))
					if _, err := c.Read(buf); err != nil {
						if ne, ok := err.(net.Error); ok && ne.Timeout() {
							continue
						}
						c.Close()
						if nc, err := net.Dial("tcp", ts.addr); err == nil {
							idle[i] = nc
						}
					}
				}
			}
		}()
		var took []time.Duration
		failed := 0
		for range 100 {
			t0 := time.Now()
			c, err := ts.dial(gossh.PublicKeys(ts.keys["alice"]))
			if err != nil {
				failed++
				continue
			}
			_, _, code := execOn(b, c, "", "whoami")
			c.Close()
			if code != 0 {
				failed++
				continue
			}
			took = append(took, time.Since(t0))
		}
		close(stop)
		for _, c := range idle {
			c.Close()
		}
		b.ReportMetric(ms(percentile(took, 50)), "whoami_p50_ms")
		b.ReportMetric(ms(percentile(took, 99)), "whoami_p99_ms")
		b.ReportMetric(float64(failed), "whoami_failed")
		b.ReportMetric(float64(peakRSSKB(srv.Process.Pid))/1024, "server_peak_rss_MB")
		b.Logf("2000 idle connections: whoami p50 %.1f ms p99 %.1f ms, %d of 100 failed; load average %s",
			ms(percentile(took, 50)), ms(percentile(took, 99)), failed, loadAverage())
	}
}

// BenchmarkServeHugePTY: a reviewer's screen requested at 10000×10000 and
// resized to it; reports the server's resident-set growth.
func BenchmarkServeHugePTY(b *testing.B) {
	bin := buildBinary(b)
	ts := &teamServer{t: b, dir: b.TempDir()}
	seedTeam(b, ts, 10, 2, []string{"alice", "bob"})
	srv := startServeProcess(b, bin, ts)
	for range b.N {
		// A normal screen first, so that what is measured is the size.
		warm := ts.openScreen("bob")
		warm.waitFor("bob")
		time.Sleep(500 * time.Millisecond)
		before := rssKB(srv.Process.Pid)
		c := ts.client("alice")
		sess, err := c.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		if err := sess.RequestPty("xterm-256color", 10000, 10000, gossh.TerminalModes{}); err != nil {
			b.Fatal(err)
		}
		p := &ptyClient{t: b, sess: sess, done: make(chan error, 1)}
		p.in, _ = sess.StdinPipe()
		sess.Stdout, sess.Stderr = p, p
		if err := sess.Shell(); err != nil {
			b.Fatal(err)
		}
		p.waitFor("alice")
		sess.WindowChange(10000, 10000)
		p.send("\r") // a key: a frame at the resized size
		time.Sleep(time.Second)
		after := rssKB(srv.Process.Pid)
		growth := float64(after-before) / 1024
		b.ReportMetric(growth, "rss_growth_MB")
		b.ReportMetric(float64(len(p.screen()))/1024, "screen_sent_KB")
		b.Logf("10000×10000 PTY: server RSS %+.1f MB (%.1f → %.1f MB), %d bytes of screen sent; load average %s",
			growth, float64(before)/1024, float64(after)/1024, len(p.screen()), loadAverage())
	}
}

// BenchmarkServeLongLine: a 50 MB line on stdin to labels import -;
// reports the server's peak resident-set growth and what the client got.
func BenchmarkServeLongLine(b *testing.B) {
	bin := buildBinary(b)
	ts := &teamServer{t: b, dir: b.TempDir()}
	seedTeam(b, ts, 10, 2, []string{"alice", "bob"})
	srv := startServeProcess(b, bin, ts)
	line := append(bytes.Repeat([]byte("x"), 50<<20), '\n')
	for range b.N {
		ts.run("alice", "", "whoami") // the server warm
		time.Sleep(300 * time.Millisecond)
		before := peakRSSKB(srv.Process.Pid)
		c := ts.client("alice")
		sess, err := c.NewSession()
		if err != nil {
			b.Fatal(err)
		}
		var errb bytes.Buffer
		sess.Stderr = &errb
		in, _ := sess.StdinPipe()
		if err := sess.Start("labels import -"); err != nil {
			b.Fatal(err)
		}
		go func() { in.Write(line); in.Close() }()
		err = sess.Wait()
		sess.Close()
		after := peakRSSKB(srv.Process.Pid)
		growth := float64(after-before) / 1024
		b.ReportMetric(growth, "peak_rss_growth_MB")
		b.Logf("50 MB stdin line: server peak RSS %+.1f MB (%.1f → %.1f MB); exit %v, stderr %q; load average %s",
			growth, float64(before)/1024, float64(after)/1024, err, strings.TrimSpace(errb.String()), loadAverage())
	}
}
