package judge

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress reports a run on stderr: a bar with an ETA redrawn in place on a
// terminal, a line every few seconds otherwise.
type Progress struct {
	w        io.Writer
	terminal bool
	label    string
	every    time.Duration
	now      func() time.Time

	mu    sync.Mutex
	start time.Time
	last  time.Time
	drawn bool
}

// NewProgress reports to w under label; terminal says whether w is one.
func NewProgress(w io.Writer, terminal bool, label string) *Progress {
	p := &Progress{w: w, terminal: terminal, label: label, every: 10 * time.Second, now: time.Now}
	if terminal {
		p.every = 100 * time.Millisecond
	}
	p.start = p.now()
	p.last = p.start
	return p
}

// Update records that done of total tasks are finished.
func (p *Progress) Update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if done < total && now.Sub(p.last) < p.every {
		return
	}
	p.last = now
	eta := "?"
	if done > 0 {
		left := time.Duration(float64(now.Sub(p.start)) / float64(done) * float64(total-done))
		eta = left.Round(time.Second).String()
	}
	if !p.terminal {
		if done < total {
			fmt.Fprintf(p.w, "%s: %d/%d, eta %s\n", p.label, done, total, eta)
		}
		return
	}
	const width = 30
	fill := 0
	if total > 0 {
		fill = done * width / total
	}
	bar := strings.Repeat("█", fill) + strings.Repeat("░", width-fill)
	fmt.Fprintf(p.w, "\r\033[K%s %s %d/%d eta %s", p.label, bar, done, total, eta)
	p.drawn = true
}

// Done clears the bar.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}
