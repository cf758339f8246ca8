package tui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/goldtrace/goldtrace/app"
)

// quitSummary is what a reviewer is told once the screen is gone: "4
// submitted, 8 left in b1, 1 draft saved" (submitted in this session; what
// is left of the batch, or of the whole queue, after the flush).
func (r labelRequest) quitSummary(submitted int) string {
	parts := []string{fmt.Sprintf("%d submitted", submitted)}
	prog, err := r.st.Progress(context.Background(), r.reviewer, r.batch)
	if err != nil {
		return parts[0]
	}
	where := "your queue"
	if r.batch != "" {
		where = r.batch
	}
	left := fmt.Sprintf("%d left in %s", prog[app.AssignPending]+prog[app.AssignDraft], where)
	if n := prog[app.AssignSkipped]; n > 0 {
		left += fmt.Sprintf(" (%d skipped)", n)
	}
	parts = append(parts, left, plural(prog[app.AssignDraft], "draft")+" saved")
	return strings.Join(parts, ", ")
}

// withSummary adds the quit summary to what a flush reports: a notice
// line after any other (an error stays an error: it is what matters then).
func withSummary(msg tea.Msg, summary string) tea.Msg {
	rep, _ := msg.(FlushReportMsg)
	if rep.Err != nil || summary == "" {
		return msg
	}
	if rep.Notice != "" {
		rep.Notice += "\n"
	}
	rep.Notice += summary
	return rep
}
