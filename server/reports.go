package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Reports (status, export, score … : Config.Report says which command lines
// are) read or write in bulk, and a client may run them in a loop, as fast
// as the server answers: a dashboard polling status, a script. Left alone,
// a few such loops take most of a small server's CPU and every reviewer's
// keystroke and submit waits behind them. So the server admits reports
// through a reportGate:
//   - at most Limits.Reports of them run at once; the others wait their
//     turn, in order, and still answer (a client that goes away, or whose
//     key is removed, leaves the queue);
//   - while reviewers are typing (a key reached one of this server's
//     screens within the last second), reports may take only
//     Limits.ReportShare of the server's time: each report's running time
//     is paid for out of a credit that grows by ReportShare a second
//     (up to reportBurst), and a report waits while the credit is
//     overdrawn. The debt is capped at reportDebt, so that after a long
//     export no report waits more than reportDebt/ReportShare (5 s at the
//     default share). When nobody types, reports run as they come.
//
// Running time is wall time from admission to the command's end: it counts
// the waits for the CPU and the database that reviewers' work causes, so
// reports back off further when the server is busier.
type reportGate struct {
	slots chan struct{}
	share float64
	// typing: whether interactive screens are in use now.
	typing func() bool

	mu     sync.Mutex
	credit time.Duration
	at     time.Time
}

// reportBurst is how much report time the credit holds at most: after a
// quiet spell, a few reports run back to back before the share applies.
const reportBurst = 500 * time.Millisecond

// reportDebt is how far the credit may be overdrawn: a report that ran
// longer (an export, an import) is not made up for by the reports after it
// waiting for minutes.
const reportDebt = time.Second

func newReportGate(slots int, share float64, typing func() bool) *reportGate {
	return &reportGate{slots: make(chan struct{}, slots), share: share, typing: typing, credit: reportBurst, at: time.Now()}
}

// admit waits for a report's turn; the returned func ends it (call it
// once, when the report is done). An error is ctx's: the report never ran
// and holds no place.
func (g *reportGate) admit(ctx context.Context) (done func(), err error) {
	select {
	case g.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		wait := g.overdrawn()
		if wait <= 0 {
			break
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			<-g.slots
			return nil, ctx.Err()
		}
	}
	start := time.Now()
	return func() {
		g.pay(time.Since(start))
		<-g.slots
	}, nil
}

// overdrawn is how long the credit needs to be back to zero while
// reviewers type; 0 when a report may start now.
func (g *reportGate) overdrawn() time.Duration {
	if g.share >= 1 || !g.typing() {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.accrueLocked()
	if g.credit >= 0 {
		return 0
	}
	return time.Duration(float64(-g.credit) / g.share)
}

// pay takes a report's running time off the credit when reviewers were
// typing.
func (g *reportGate) pay(d time.Duration) {
	if g.share >= 1 || !g.typing() {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.accrueLocked()
	g.credit = max(g.credit-d, -reportDebt)
}

func (g *reportGate) accrueLocked() {
	now := time.Now()
	g.credit = min(reportBurst, g.credit+time.Duration(float64(now.Sub(g.at))*g.share))
	g.at = now
}

// typingWindow: a screen that had a key this recently counts as in use.
const typingWindow = time.Second

// keyClock records when a key last reached any of the server's screens.
type keyClock struct{ last atomic.Int64 }

func (k *keyClock) key() { k.last.Store(time.Now().UnixNano()) }

func (k *keyClock) typing() bool {
	return time.Since(time.Unix(0, k.last.Load())) < typingWindow
}
