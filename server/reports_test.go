package server

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestReportsWaitTheirTurn: over SSH, with one report at a time, a report
// sent while another runs waits and then answers; a command that is not a
// report runs at once meanwhile; a client that goes away while its report
// waits leaves the queue (its report never runs and holds no place).
func TestReportsWaitTheirTurn(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var statusRuns atomic.Int64
	addr, key, log := testServerLog(t, Limits{Reports: 1}, func(ctx context.Context, args []string, _ io.Reader, out, _ io.Writer) int {
		switch args[0] {
		case "hold":
			close(started)
			select {
			case <-release:
			case <-ctx.Done():
			}
		case "status":
			statusRuns.Add(1)
		}
		fmt.Fprintf(out, "%s done\n", args[0])
		return 0
	}, func(args []string) bool { return args[0] != "whoami" })

	run := func(cmd string) <-chan string {
		c := dialKey(t, addr, key)
		got := make(chan string, 1)
		go func() {
			sess, err := c.NewSession()
			if err != nil {
				got <- err.Error()
				return
			}
			out, err := sess.CombinedOutput(cmd)
			if err != nil {
				got <- err.Error()
				return
			}
			got <- string(out)
		}()
		return got
	}
	held := run("hold")
	<-started
	queued := run("status")
	// A client that gives up while its report waits: its own connection,
	// closed.
	quitter := dialKey(t, addr, key)
	qs, err := quitter.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := qs.Start("status"); err != nil {
		t.Fatal(err)
	}
	if got := <-run("whoami"); got != "whoami done\n" {
		t.Fatalf("whoami beside a running report: %q", got)
	}
	select {
	case got := <-queued:
		t.Fatalf("a report answered while the only report slot was held: %q", got)
	case <-time.After(300 * time.Millisecond):
	}
	quitter.Close()
	// The server sees the connection go: the quitter's session ends, the
	// only one to exit 2 (cancelled while waiting its turn). A fixed pause
	// raced it on a loaded machine.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(log.String(), "exit=2"); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not end the session of a client that went away within 10 s: %s", log.String())
		}
	}
	close(release)
	if got := <-held; got != "hold done\n" {
		t.Fatalf("held report: %q", got)
	}
	select {
	case got := <-queued:
		if got != "status done\n" {
			t.Fatalf("queued report: %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the queued report never answered")
	}
	select {
	case got := <-run("status"):
		if got != "status done\n" {
			t.Fatalf("a report after the queue emptied: %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a report after the queue emptied never answered: the departed client's place was kept")
	}
	if n := statusRuns.Load(); n != 2 {
		t.Fatalf("status ran %d times, want 2 (the client that left must not run)", n)
	}
}

// TestReportShare: while reviewers type, a report's running time is paid
// from the credit and the next report waits while it is overdrawn, long
// enough for reports to take the share; when nobody types, reports run as
// they come; a report cancelled while it waits for credit gives its slot
// back.
func TestReportShare(t *testing.T) {
	var typing atomic.Bool
	typing.Store(true)
	g := newReportGate(1, 0.25, typing.Load)
	if wait := g.overdrawn(); wait != 0 {
		t.Fatalf("a fresh gate makes a report wait %s", wait)
	}
	paid := time.Now()
	g.pay(reportBurst + time.Second) // one second overdrawn
	wait := g.overdrawn()
	// 4 s less the credit regained since the payment (a quarter of the
	// time since): bounded by what passed, not by a guess of 100 ms,
	// which a loaded machine can take between two statements.
	if lo := 4*time.Second - time.Since(paid) - time.Microsecond; wait < lo || wait > 4*time.Second {
		t.Fatalf("one second overdrawn at a share of 1/4: wait %s, want 4 s less the time since (%s at least)", wait, lo)
	}
	g.pay(time.Hour) // an export that ran long
	if wait := g.overdrawn(); wait > 4*time.Second {
		t.Fatalf("after a report of an hour the next waits %s; the debt is capped at %s (4 s at a share of 1/4)", wait, reportDebt)
	}
	typing.Store(false)
	if wait := g.overdrawn(); wait != 0 {
		t.Fatalf("nobody typing: a report waits %s", wait)
	}
	typing.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := g.admit(ctx); err == nil {
		t.Fatal("a report was admitted while the credit was overdrawn")
	}
	if n := len(g.slots); n != 0 {
		t.Fatalf("a report cancelled while it waited for credit kept %d slot(s)", n)
	}
	typing.Store(false)
	done, err := g.admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done()
	typing.Store(true)
	free := newReportGate(1, 1, typing.Load)
	free.pay(time.Hour)
	if wait := free.overdrawn(); wait != 0 {
		t.Fatalf("a share of 1 (no bound) makes a report wait %s", wait)
	}
}

// TestKeyClock: screens count as in use for a second after a key.
func TestKeyClock(t *testing.T) {
	var k keyClock
	if k.typing() {
		t.Fatal("typing before any key")
	}
	k.key()
	if !k.typing() {
		t.Fatal("not typing right after a key")
	}
	k.last.Store(time.Now().Add(-typingWindow - time.Millisecond).UnixNano())
	if k.typing() {
		t.Fatal("still typing a second after the last key")
	}
}
