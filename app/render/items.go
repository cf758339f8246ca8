package render

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/textwrap"
)

// Items prints rows in 80 columns: a line of columns per item, then
// its first user message, indented, on a line of its own.
func Items(w io.Writer, rows []app.ItemRow, reviewer bool, now time.Time) {
	if len(rows) == 0 {
		fmt.Fprintln(w, "no items match")
		return
	}
	heads := []string{"ITEM", "BATCH", "STATE", "OBSERVED TOOL", "AGE"}
	cells := func(r app.ItemRow) []string {
		state := r.Status
		if r.Assignment != "" {
			state = r.Assignment
			if !reviewer && r.Status != "" {
				state = r.Assignment + "/" + r.Status
			}
		}
		return []string{r.ID, r.Batch, state, r.ObservedTool, age(r.UpdatedAt, now)}
	}
	if reviewer {
		heads = []string{"ITEM", "BATCH", "YOUR STATUS", "AGE"}
		cells = func(r app.ItemRow) []string {
			return []string{r.ID, r.Batch, r.Assignment, age(r.UpdatedAt, now)}
		}
	}
	widths := make([]int, len(heads))
	for i, h := range heads {
		widths[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range cells(r) {
			widths[i] = max(widths[i], len([]rune(c)))
		}
	}
	// What does not fit is taken from the widest free-text column.
	const gap = 2
	total := (len(widths) - 1) * gap
	for _, n := range widths {
		total += n
	}
	if over := total - textwrap.Width; over > 0 {
		widest := 1
		for i := 1; i < len(widths)-1; i++ {
			if widths[i] > widths[widest] {
				widest = i
			}
		}
		widths[widest] = max(widths[widest]-over, 5)
	}
	line := func(cs []string) string {
		var b strings.Builder
		for i, c := range cs {
			if i > 0 {
				b.WriteString(strings.Repeat(" ", gap))
			}
			c = clip(c, widths[i])
			if i == len(cs)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", widths[i]-len([]rune(c))))
		}
		return strings.TrimRight(b.String(), " ")
	}
	fmt.Fprintln(w, line(heads))
	for _, r := range rows {
		fmt.Fprintln(w, line(cells(r)))
		if msg := strings.Join(strings.Fields(r.FirstUser), " "); msg != "" {
			fmt.Fprintln(w, "  "+clip(msg, textwrap.Width-2))
		}
	}
	fmt.Fprintf(w, "%s (--json for the full messages)\n", CountNoun(len(rows), "item", "items"))
}

// clip shortens s to n runes, ending it with … when cut.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	return string(r[:n-1]) + "…"
}

// age is how long ago ts (RFC 3339) was, in its largest unit: 40s, 12m,
// 5h, 3d; "-" when unknown.
func age(ts string, now time.Time) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
