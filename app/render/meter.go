package render

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Meter shows the progress of long work on stderr, on one line rewritten in
// place, only when stderr is a terminal: what is done, the percentage and
// an ETA when the total is known. It is safe to use from several
// goroutines; Done clears the line.
type Meter struct {
	w     io.Writer // nil: quiet
	what  string
	unit  string // "MB" for bytes, else a noun counted
	total int64  // 0: unknown
	start time.Time
	now   func() time.Time

	mu    sync.Mutex
	done  int64
	shown time.Time
}

// NewMeter returns a meter writing to w (nil: quiet; a caller passes its
// stderr only when that is a terminal). total 0 means unknown; unit "MB"
// counts bytes.
func NewMeter(w io.Writer, what, unit string, total int64) *Meter {
	m := &Meter{w: w, what: what, unit: unit, total: total, now: time.Now}
	m.start = m.now()
	return m
}

// SetTotal sets the total once it is known (a file's size once opened).
func (m *Meter) SetTotal(total int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.total = total
}

// Add counts n more units done.
func (m *Meter) Add(n int64) {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.done += n
	if t := m.now(); t.Sub(m.shown) >= 200*time.Millisecond {
		m.shown = t
		fmt.Fprint(m.w, "\r\033[K"+m.line(t))
	}
}

// line is the progress text at time t.
func (m *Meter) line(t time.Time) string {
	amount := func(n int64) string {
		if m.unit == "MB" {
			return fmt.Sprintf("%.0f", float64(n)/1e6)
		}
		return fmt.Sprint(n)
	}
	if m.total <= 0 {
		return fmt.Sprintf("%s: %s %s", m.what, amount(m.done), m.unit)
	}
	pct := float64(m.done) / float64(m.total) * 100
	s := fmt.Sprintf("%s: %3.0f%% (%s/%s %s)", m.what, pct, amount(m.done), amount(m.total), m.unit)
	if elapsed := t.Sub(m.start); m.done > 0 && elapsed > time.Second {
		left := time.Duration(float64(elapsed) * float64(m.total-m.done) / float64(m.done))
		s += ", ETA " + left.Round(time.Second).String()
	}
	return s
}

// Done clears the progress line.
func (m *Meter) Done() {
	if m == nil || m.w == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.shown.IsZero() {
		fmt.Fprint(m.w, "\r\033[K")
	}
}
