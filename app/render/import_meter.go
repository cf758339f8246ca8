package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/app"
)

// ImportMeter shows an import's progress on stderr. The input is written
// while it is read, so its record count is known only at its end: the
// percentage and the time left come from the bytes read of the file (for
// stdin there are none: the count and the rate only). On a terminal a bar
// is redrawn in place; otherwise a plain line is written every 10 seconds,
// for logs.
type ImportMeter struct {
	w        io.Writer
	name     string
	terminal bool
	now      func() time.Time

	started   time.Time // when the import began
	lastLine  time.Time
	drawn     bool
	lineEvery time.Duration
}

func NewImportMeter(w io.Writer, name string, terminal bool, now func() time.Time) *ImportMeter {
	t := now()
	return &ImportMeter{w: w, name: name, terminal: terminal, now: now, started: t, lastLine: t, lineEvery: 10 * time.Second}
}

func (m *ImportMeter) Update(p app.ImportProgress) {
	t := m.now()
	if !m.terminal {
		if t.Sub(m.lastLine) < m.lineEvery {
			return
		}
		m.lastLine = t
		fmt.Fprintln(m.w, m.text(p, t))
		return
	}
	m.drawn = true
	fmt.Fprintf(m.w, "\r\033[K%s", m.bar(p, t, 80))
}

// text is the line written to logs.
func (m *ImportMeter) text(p app.ImportProgress, t time.Time) string {
	pct, rate, eta := m.figures(p, t)
	var where string
	switch {
	case p.Total > 0:
		where = fmt.Sprintf("%d of %d traces written (%.0f%%), %s/s, %s left", p.Records, p.Total, pct, compactCount(rate), eta)
	case pct >= 0:
		where = fmt.Sprintf("%d traces written (%.0f%% of the file read), %s/s, %s left", p.Records, pct, compactCount(rate), eta)
	default:
		where = fmt.Sprintf("%d traces written, %s/s", p.Records, compactCount(rate))
	}
	return fmt.Sprintf("%s: %s; %d new, %d already stored", m.name, where, p.Imported, p.Duplicates)
}

// bar renders "NAME [#####·····]  42% 4200 traces 1.2k/s ETA 0:05" in
// width columns ("NAME: 4200 traces written, 1.2k/s" when the input's size
// is not known).
func (m *ImportMeter) bar(p app.ImportProgress, t time.Time, width int) string {
	pct, rate, eta := m.figures(p, t)
	name := m.name
	if max := width / 3; len([]rune(name)) > max {
		r := []rune(name)
		name = "…" + string(r[len(r)-max+1:])
	}
	if pct < 0 {
		return fmt.Sprintf("%s: %d traces written, %s/s", name, p.Records, compactCount(rate))
	}
	tail := fmt.Sprintf(" %3.0f%% %d traces %s/s ETA %s", pct, p.Records, compactCount(rate), eta)
	cells := width - 1 - len([]rune(name)) - 3 - len([]rune(tail))
	if cells < 5 {
		return strings.TrimSpace(name + tail)
	}
	full := int(float64(cells) * pct / 100)
	return name + " [" + strings.Repeat("#", full) + strings.Repeat("·", cells-full) + "]" + tail
}

// figures are how far the import is in percent (of the records once their
// total is known, else of the file's bytes; -1 when neither is known), the
// traces written per second, and the time left ("?" when unknown).
func (m *ImportMeter) figures(p app.ImportProgress, t time.Time) (pct, rate float64, eta string) {
	switch {
	case p.Total > 0:
		pct = 100 * float64(p.Records) / float64(p.Total)
	case p.Size > 0:
		pct = min(100*float64(p.Read)/float64(p.Size), 100)
	default:
		pct = -1
	}
	eta = "?"
	el := t.Sub(m.started).Seconds()
	if el > 0 {
		rate = float64(p.Records) / el
	}
	if el > 0 && pct > 0 {
		left := time.Duration(el * (100 - pct) / pct * float64(time.Second)).Round(time.Second)
		eta = fmt.Sprintf("%d:%02d", int(left.Minutes()), int(left.Seconds())%60)
	}
	return pct, rate, eta
}

// Done clears the bar.
func (m *ImportMeter) Done() {
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
