package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/store"
)

// importMeter shows an import's progress on stderr. On a terminal: a
// counter while the input is checked, then, the total being known, a bar
// with the percentage, rate and time left, redrawn in place. Otherwise a
// plain line every 10 seconds, for logs.
type importMeter struct {
	w        io.Writer
	name     string
	terminal bool
	now      func() time.Time

	started   time.Time // the writing pass's start
	lastLine  time.Time
	drawn     bool
	lineEvery time.Duration
}

func newImportMeter(w io.Writer, name string, terminal bool, now func() time.Time) *importMeter {
	return &importMeter{w: w, name: name, terminal: terminal, now: now, lastLine: now(), lineEvery: 10 * time.Second}
}

func (m *importMeter) update(p store.ImportProgress) {
	t := m.now()
	if !p.Checking && m.started.IsZero() {
		m.started = t
	}
	if !m.terminal {
		if t.Sub(m.lastLine) < m.lineEvery {
			return
		}
		m.lastLine = t
		fmt.Fprintln(m.w, m.text(p, t))
		return
	}
	m.drawn = true
	if p.Checking {
		fmt.Fprintf(m.w, "\r\033[K%s: checking, %d records read…", m.name, p.Records)
		return
	}
	fmt.Fprintf(m.w, "\r\033[K%s", m.bar(p, t, 80))
}

// text is the line written to logs.
func (m *importMeter) text(p store.ImportProgress, t time.Time) string {
	if p.Checking || p.Total == 0 {
		return fmt.Sprintf("%s: checking, %d records read", m.name, p.Records)
	}
	pct, rate, eta := m.figures(p, t)
	return fmt.Sprintf("%s: %d of %d traces written (%.0f%%), %s/s, %s left; %d new, %d already stored",
		m.name, p.Records, p.Total, pct, compactCount(rate), eta, p.Imported, p.Duplicates)
}

// bar renders "NAME [#####·····]  42%  1.2k/s  ETA 0:05" in width columns.
func (m *importMeter) bar(p store.ImportProgress, t time.Time, width int) string {
	pct, rate, eta := m.figures(p, t)
	tail := fmt.Sprintf(" %3.0f%% %d/%d %s/s ETA %s", pct, p.Records, p.Total, compactCount(rate), eta)
	name := m.name
	if max := width / 3; len([]rune(name)) > max {
		r := []rune(name)
		name = "…" + string(r[len(r)-max+1:])
	}
	cells := width - 1 - len([]rune(name)) - 3 - len([]rune(tail))
	if cells < 5 {
		return strings.TrimSpace(name + tail)
	}
	full := int(float64(cells) * pct / 100)
	return name + " [" + strings.Repeat("#", full) + strings.Repeat("·", cells-full) + "]" + tail
}

func (m *importMeter) figures(p store.ImportProgress, t time.Time) (pct, rate float64, eta string) {
	if p.Total > 0 {
		pct = 100 * float64(p.Records) / float64(p.Total)
	}
	eta = "?"
	if el := t.Sub(m.started).Seconds(); el > 0 && p.Records > 0 {
		rate = float64(p.Records) / el
		left := time.Duration(float64(p.Total-p.Records) / rate * float64(time.Second)).Round(time.Second)
		eta = fmt.Sprintf("%d:%02d", int(left.Minutes()), int(left.Seconds())%60)
	}
	return pct, rate, eta
}

// done clears the bar.
func (m *importMeter) done() {
	if m.terminal && m.drawn {
		fmt.Fprint(m.w, "\r\033[K")
	}
}

// compactCount writes 950, 12.3k, 4.5M.
func compactCount(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.0fk", v/1e3)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
