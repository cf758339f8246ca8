package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
)

// Limits keep one client from starving the server. Each has a default
// (DefaultLimits) and a goldtrace serve flag; docs/review.md lists them.
type Limits struct {
	// HandshakeTimeout: a connection that has not authenticated by then
	// is closed.
	HandshakeTimeout time.Duration
	// MaxUnauthenticated connections at once, in all and from one address;
	// more are closed as they arrive.
	MaxUnauthenticated, MaxUnauthenticatedPerHost int
	// SessionsPerKey: open sessions (screens and commands) of one key.
	SessionsPerKey int
	// IdleTimeout: a connection with no traffic either way that long is
	// closed.
	IdleTimeout time.Duration
	// StallTimeout: a command whose output the client has not taken for
	// that long is ended (it would otherwise hold a database snapshot).
	StallTimeout time.Duration
	// MaxWidth × MaxHeight: a terminal's size is clamped to this, on the
	// request and on every resize.
	MaxWidth, MaxHeight int
	// MaxLine: the longest line a command reads from the client's stdin.
	MaxLine int
	// MaxErrorLines: error lines a command sends back; the rest are
	// counted ("… N more").
	MaxErrorLines int
	// RevokeCheck: how often open sessions' keys are checked against the
	// users' keys (a removal over SSH is checked at once, and so is one
	// announced by another replica: Config.WatchKeys). It bounds how long
	// a removed key's session lives when no announcement comes.
	RevokeCheck time.Duration
	// Reports: report commands (status, export, score …: Config.Report)
	// running at once; more wait their turn.
	Reports int
	// ReportShare: the share of the server's time reports may take while
	// reviewers type on its screens (1: no bound). See reportGate.
	ReportShare float64
}

// DefaultLimits are the limits goldtrace serve starts with.
func DefaultLimits() Limits {
	return Limits{
		HandshakeTimeout:          10 * time.Second,
		MaxUnauthenticated:        512,
		MaxUnauthenticatedPerHost: 64,
		SessionsPerKey:            16,
		IdleTimeout:               30 * time.Minute,
		StallTimeout:              30 * time.Second,
		MaxWidth:                  500,
		MaxHeight:                 200,
		MaxLine:                   8 << 20,
		MaxErrorLines:             100,
		RevokeCheck:               time.Second,
		Reports:                   2,
		ReportShare:               0.2,
	}
}

// withDefaults fills unset (zero or negative) limits from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	pick := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pickD := func(v *time.Duration, def time.Duration) {
		if *v <= 0 {
			*v = def
		}
	}
	pickD(&l.HandshakeTimeout, d.HandshakeTimeout)
	pick(&l.MaxUnauthenticated, d.MaxUnauthenticated)
	pick(&l.MaxUnauthenticatedPerHost, d.MaxUnauthenticatedPerHost)
	pick(&l.SessionsPerKey, d.SessionsPerKey)
	pickD(&l.IdleTimeout, d.IdleTimeout)
	pickD(&l.StallTimeout, d.StallTimeout)
	pick(&l.MaxWidth, d.MaxWidth)
	pick(&l.MaxHeight, d.MaxHeight)
	pick(&l.MaxLine, d.MaxLine)
	pick(&l.MaxErrorLines, d.MaxErrorLines)
	pickD(&l.RevokeCheck, d.RevokeCheck)
	pick(&l.Reports, d.Reports)
	if l.ReportShare <= 0 {
		l.ReportShare = d.ReportShare
	}
	l.ReportShare = min(l.ReportShare, 1)
	return l
}

// clampWindow bounds a terminal size to the limits.
func (l Limits) clampWindow(w ssh.Window) ssh.Window {
	w.Width = min(max(w.Width, 1), l.MaxWidth)
	w.Height = min(max(w.Height, 1), l.MaxHeight)
	return w
}

// gate counts connections that have not authenticated yet, in all and
// per address, and closes the ones that take longer than the handshake
// timeout. Over a cap, the unauthenticated connection (of the address, or
// of all) that has sent the least is closed to make room, the oldest of
// those: a flood of idle connections pushes out its own, not a user whose
// client is in the middle of its handshake.
type gate struct {
	mu      sync.Mutex
	all     []*pending
	byHost  map[string][]*pending
	limits  Limits
	evicted atomic.Int64
}

type gateKey struct{}

// pending is one unauthenticated connection's place at the gate.
type pending struct {
	g     *gate
	host  string
	timer *time.Timer
	conn  net.Conn
	ctx   ssh.Context
	// read is how many bytes the client has sent: how far its handshake
	// has come.
	read atomic.Int64
}

// handshaken reports whether the connection has completed its SSH
// handshake, authentication included. (The public-key callback alone does
// not tell: it also answers a client that only asks whether a key would
// do, and anyone may know a user's public key.)
func (p *pending) handshaken() bool {
	return p.ctx.Value(ssh.ContextKeyConn) != nil
}

// admit counts conn as unauthenticated, closing the oldest ones over the
// caps, and starts its handshake timer.
func (g *gate) admit(ctx ssh.Context, conn net.Conn) *pending {
	p := &pending{g: g, host: remoteHost(conn.RemoteAddr()), conn: conn, ctx: ctx}
	var evict []*pending
	g.mu.Lock()
	if len(g.byHost[p.host]) >= g.limits.MaxUnauthenticatedPerHost || len(g.all) >= g.limits.MaxUnauthenticated {
		for _, old := range slices.Clone(g.all) {
			if old.handshaken() {
				g.removeLocked(old) // authenticated since: not waiting any more
			}
		}
	}
	if hs := g.byHost[p.host]; len(hs) >= g.limits.MaxUnauthenticatedPerHost {
		old := leastSent(hs)
		evict = append(evict, old)
		g.removeLocked(old)
	}
	if len(g.all) >= g.limits.MaxUnauthenticated {
		old := leastSent(g.all)
		evict = append(evict, old)
		g.removeLocked(old)
	}
	g.all = append(g.all, p)
	g.byHost[p.host] = append(g.byHost[p.host], p)
	p.timer = time.AfterFunc(g.limits.HandshakeTimeout, func() {
		if p.leave() && !p.handshaken() {
			conn.Close()
		}
	})
	g.mu.Unlock()
	for _, old := range evict {
		old.timer.Stop()
		if !old.handshaken() {
			g.evicted.Add(1)
			old.conn.Close()
		}
	}
	ctx.SetValue(gateKey{}, p)
	return p
}

// leastSent is the connection that has sent the fewest bytes, the oldest
// of those (ps is oldest first and not empty).
func leastSent(ps []*pending) *pending {
	best := ps[0]
	for _, p := range ps[1:] {
		if p.read.Load() < best.read.Load() {
			best = p
		}
	}
	return best
}

// removeLocked takes p off the lists (once). g.mu is held.
func (g *gate) removeLocked(p *pending) bool {
	i := slices.Index(g.all, p)
	if i < 0 {
		return false
	}
	g.all = slices.Delete(g.all, i, i+1)
	hs := g.byHost[p.host]
	if j := slices.Index(hs, p); j >= 0 {
		hs = slices.Delete(hs, j, j+1)
	}
	if len(hs) == 0 {
		delete(g.byHost, p.host)
	} else {
		g.byHost[p.host] = hs
	}
	return true
}

// leave takes the connection off the unauthenticated count: it
// authenticated, closed or timed out. It reports whether this call did.
func (p *pending) leave() bool {
	p.g.mu.Lock()
	defer p.g.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
	}
	return p.g.removeLocked(p)
}

// gatedConn leaves the gate when it is closed.
type gatedConn struct {
	net.Conn
	p *pending
}

func (c *gatedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.p.read.Add(int64(n))
	return n, err
}

func (c *gatedConn) Close() error {
	c.p.leave()
	return c.Conn.Close()
}

// lineLimit passes a client's stdin through, failing once a line is longer
// than max bytes: one clear error instead of a server that buffers it.
type lineLimit struct {
	r    io.Reader
	max  int
	line int // bytes since the last newline
	err  error
}

// ErrLineTooLong is what a command reading a line over the limit gets.
var ErrLineTooLong = errors.New("line too long")

func (l *lineLimit) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			l.line += n - i
			break
		}
		l.line += j
		if l.line > l.max {
			break
		}
		l.line = 0
		i += j + 1
	}
	if l.line > l.max {
		l.err = lineTooLong(l.max)
		return 0, l.err
	}
	return n, err
}

// lineTooLong is ErrLineTooLong in words that name the limit.
type lineTooLong int

func (e lineTooLong) Error() string {
	return fmt.Sprintf("stdin: a line is longer than %s (goldtrace serve --max-line)", sizeWords(int(e)))
}

func (e lineTooLong) Is(target error) bool { return target == ErrLineTooLong }

func sizeWords(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// lineCap passes at most max lines of a command's error output to w; the
// lines after are counted and the last one kept (a command's own error
// comes last), and finish writes "… N more" and that last line.
type lineCap struct {
	w       io.Writer
	max     int
	lines   int
	dropped int
	partial []byte // the dropped line being written
	last    []byte // the last complete dropped line
}

func (c *lineCap) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		j := bytes.IndexByte(p, '\n')
		chunk := p
		if j >= 0 {
			chunk = p[:j+1]
		}
		p = p[len(chunk):]
		if c.lines < c.max {
			if _, err := c.w.Write(chunk); err != nil {
				return n - len(p) - len(chunk), err
			}
			if j >= 0 {
				c.lines++
			}
			continue
		}
		if len(c.partial) < 4096 {
			c.partial = append(c.partial, chunk[:min(len(chunk), 4096-len(c.partial))]...)
		}
		if j >= 0 {
			c.dropped++
			c.last, c.partial = c.partial, nil
		}
	}
	return n, nil
}

// finish reports what was held back.
func (c *lineCap) finish() {
	if len(c.partial) > 0 {
		c.dropped++
		c.last, c.partial = append(c.partial, '\n'), nil
	}
	if c.dropped == 0 {
		return
	}
	more := c.dropped - 1
	if more > 0 {
		fmt.Fprintf(c.w, "goldtrace: … %d more lines not shown (goldtrace serve --max-error-lines)\n", more)
	}
	c.w.Write(c.last)
}

// stallWatch is a command's output to the client: a write the client has
// not taken for the stall timeout ends the command (stall is called).
type stallWatch struct {
	w       io.Writer
	started atomic.Int64 // unix nanoseconds a pending write began, 0 when none
}

func (s *stallWatch) Write(p []byte) (int, error) {
	s.started.Store(time.Now().UnixNano())
	defer s.started.Store(0)
	return s.w.Write(p)
}

// stalled reports whether a write has been pending longer than d.
func (s *stallWatch) stalled(d time.Duration) bool {
	t := s.started.Load()
	return t != 0 && time.Since(time.Unix(0, t)) > d
}
