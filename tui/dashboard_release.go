package tui

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/goldtrace/goldtrace/app"
)

// The dashboard's release: a lead moves a reviewer's skipped items (and,
// with s, pending items nobody touched for a while) to another reviewer,
// as goldtrace assign --release does, through the same app action (lead
// only, audited). Three steps: whose items, to whom, confirm.

// ReleaseAPI is what the release panel reads and writes.
type ReleaseAPI interface {
	Users(ctx context.Context) ([]app.User, error)
	ReleaseAssignments(ctx context.Context, req app.ReleaseRequest) (released, kept []app.Release, err error)
}

// stalledChoices are how long a pending item must have gone untouched to
// be released too (0: skipped items only); s cycles through them.
var stalledChoices = []time.Duration{0, 24 * time.Hour, 72 * time.Hour, 7 * 24 * time.Hour}

type releaseStep int

const (
	releaseFrom    releaseStep = iota // choosing whose items
	releaseTo                         // choosing who gets them
	releaseConfirm                    // y releases
)

// reviewerLoad is one reviewer's open assignments in the dashboard's
// batch (or all batches).
type reviewerLoad struct {
	Name             string
	Skipped, Pending int
}

// releasePanel is the state of one release.
type releasePanel struct {
	step    releaseStep
	from    []reviewerLoad // reviewers with assignments, by name
	users   []app.User     // who may receive items; nil until loaded
	to      []string       // users who may label, without the chosen reviewer
	fromCur int
	toCur   int
	stalled int // index into stalledChoices
	running bool
	loadErr error
}

// Messages of the release's commands.
type (
	releaseUsersMsg struct {
		users []app.User
		err   error
	}
	releaseDoneMsg struct {
		from, to       string
		released, kept []app.Release
		err            error
	}
)

// reviewerLoads sums each reviewer's skipped and pending assignments over
// the batches of a status.
func reviewerLoads(st *app.Status) []reviewerLoad {
	by := map[string]*reviewerLoad{}
	var out []reviewerLoad
	for _, b := range st.Batches {
		for _, r := range b.Reviewers {
			l, ok := by[r.Reviewer]
			if !ok {
				l = &reviewerLoad{Name: r.Reviewer}
				by[r.Reviewer] = l
			}
			l.Skipped += r.Skipped
			l.Pending += r.Pending
		}
	}
	for _, l := range by {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// openRelease starts a release over the current status and loads the
// users who may receive items.
func (p *DashboardPage) openRelease() tea.Cmd {
	if p.data == nil {
		return nil
	}
	p.release = releasePanel{from: reviewerLoads(&p.data.Status)}
	p.mode = modeRelease
	api := p.c.API
	return func() tea.Msg {
		users, err := api.Users(context.Background())
		return releaseUsersMsg{users: users, err: err}
	}
}

func (p *DashboardPage) releaseUsersLoaded(msg releaseUsersMsg) tea.Cmd {
	if p.mode != modeRelease {
		return nil
	}
	r := &p.release
	if msg.err != nil {
		r.loadErr = msg.err
		return ReportErr(msg.err)
	}
	r.users = msg.users
	return nil
}

// releaseKey handles a key of the release panel.
func (p *DashboardPage) releaseKey(msg tea.KeyMsg) tea.Cmd {
	k, r := p.keys, &p.release
	if r.running {
		return nil // the release is being written: nothing to change
	}
	if key.Matches(msg, k.Stalled) {
		r.stalled = (r.stalled + 1) % len(stalledChoices)
		return nil
	}
	switch r.step {
	case releaseFrom, releaseTo:
		cur, n := &r.fromCur, len(r.from)
		if r.step == releaseTo {
			cur, n = &r.toCur, len(r.to)
		}
		switch {
		case key.Matches(msg, k.Up):
			*cur = max(*cur-1, 0)
		case key.Matches(msg, k.Down):
			*cur = min(*cur+1, max(n-1, 0))
		case key.Matches(msg, k.No) && r.step == releaseFrom:
			p.mode = modeOverview
		case key.Matches(msg, k.No):
			r.step = releaseFrom
		case key.Matches(msg, k.Open) && r.step == releaseFrom:
			return p.chooseFrom()
		case key.Matches(msg, k.Open) && n > 0:
			r.step = releaseConfirm
		}
	case releaseConfirm:
		switch {
		case key.Matches(msg, k.No):
			r.step = releaseTo
		case key.Matches(msg, k.Yes):
			return p.runRelease()
		}
	}
	return nil
}

// chooseFrom takes the reviewer under the cursor and lists who may get
// their items: every user who can label (reviewers and leads) but them.
func (p *DashboardPage) chooseFrom() tea.Cmd {
	r := &p.release
	if len(r.from) == 0 {
		return nil
	}
	from := r.from[r.fromCur]
	if from.Skipped == 0 && (r.stalled == 0 || from.Pending == 0) {
		what := "no skipped items"
		if r.stalled == 0 && from.Pending > 0 {
			what += " (s also releases pending items nobody touched)"
		}
		return ReportStatus(from.Name + " has " + what)
	}
	if r.users == nil {
		return ReportStatus("still reading the users…")
	}
	r.to = r.to[:0]
	for _, u := range r.users {
		if u.Name != from.Name && (u.Role == string(app.RoleReviewer) || u.Role == string(app.RoleLead)) {
			r.to = append(r.to, u.Name)
		}
	}
	if len(r.to) == 0 {
		return ReportStatus("nobody else can label: add a reviewer first (goldtrace users add)")
	}
	r.toCur = min(r.toCur, len(r.to)-1)
	r.step = releaseTo
	return nil
}

// runRelease writes the release the panel describes.
func (p *DashboardPage) runRelease() tea.Cmd {
	r := &p.release
	r.running = true
	req := app.ReleaseRequest{From: r.from[r.fromCur].Name, To: r.to[r.toCur], Batch: p.opts.Batch}
	if d := stalledChoices[r.stalled]; d > 0 {
		req.StalledSince = p.c.Now().Add(-d)
	}
	api := p.c.API
	return func() tea.Msg {
		released, kept, err := api.ReleaseAssignments(context.Background(), req)
		return releaseDoneMsg{from: req.From, to: req.To, released: released, kept: kept, err: err}
	}
}

func (p *DashboardPage) releaseDone(msg releaseDoneMsg) tea.Cmd {
	if p.mode != modeRelease || !p.release.running {
		return nil
	}
	p.release.running = false
	if msg.err != nil {
		p.release.step = releaseTo
		return ReportErr(fmt.Errorf("release: %w", msg.err))
	}
	p.mode = modeOverview
	text := fmt.Sprintf("released %d item(s) from %s to %s", len(msg.released), msg.from, msg.to)
	if n := len(msg.kept); n > 0 {
		text += fmt.Sprintf("; %d kept (%s already has them)", n, msg.to)
	}
	return tea.Batch(ReportStatus(text), p.load())
}

// stalledText says what s has chosen.
func stalledText(i int) string {
	if i == 0 {
		return "skipped items only"
	}
	return "skipped items, and pending ones " + untouchedFor(i)
}

func untouchedFor(i int) string {
	return fmt.Sprintf("untouched for %dd", int(stalledChoices[i].Hours())/24)
}

// viewRelease renders the panel: the reviewers with their open work on the
// left, who may receive it on the right, the choice and the question below.
func (p *DashboardPage) viewRelease() string {
	s := &p.c.Styles
	r := &p.release
	title := "Move a reviewer's items"
	if p.opts.Batch != "" {
		title += " · batch " + p.opts.Batch
	}
	lines := []string{s.Title.Render(title),
		s.Muted.Render(wrapText("They go to the end of the other reviewer's queue, to be labeled blind like any item; "+
			"drafts never move. Same as goldtrace assign --release.", p.width-1)), ""}
	colW := max(p.width/2-1, 20)
	left := []string{s.Pane.Title.Render("From")}
	if len(r.from) == 0 {
		left = append(left, s.Muted.Render("nobody has assignments here"))
	}
	const countsW = 23 // "  2 skipped   2 pending"
	nameW := min(max(colW-2-countsW, 6), 20)
	for i, l := range r.from {
		row := padRight(truncate(l.Name, nameW-1), nameW) + fmt.Sprintf("%3d skipped %3d pending", l.Skipped, l.Pending)
		left = append(left, cursorRow(s, row, i == r.fromCur, r.step == releaseFrom))
	}
	right := []string{s.Pane.Title.Render("To")}
	switch {
	case r.step == releaseFrom:
		right = append(right, s.Muted.Render("choose whose items first (enter)"))
	default:
		for i, name := range r.to {
			right = append(right, cursorRow(s, truncate(name, colW-3), i == r.toCur, r.step == releaseTo))
		}
	}
	for i := range left {
		left[i] = lipgloss.NewStyle().Width(colW).MaxWidth(colW).Render(left[i])
	}
	lines = append(lines, lipgloss.JoinHorizontal(lipgloss.Top, strings.Join(left, "\n"), "  ", strings.Join(right, "\n")), "")
	lines = append(lines, s.Muted.Render("Releases: ")+stalledText(r.stalled)+s.Muted.Render(" (s changes it)"))
	if r.step == releaseConfirm {
		from, to := r.from[r.fromCur], r.to[r.toCur]
		what := fmt.Sprintf("%d skipped item(s)", from.Skipped)
		if r.stalled > 0 {
			what += " and the pending ones " + untouchedFor(r.stalled)
		}
		q := fmt.Sprintf("Move %s's %s to %s?", from.Name, what, to)
		if r.running {
			q = "Moving…"
		}
		lines = append(lines, "", s.Title.Render(wrapText(q, p.width-1)), s.Muted.Render("y moves them · n goes back"))
	}
	for i := range lines {
		lines[i] = lipgloss.NewStyle().MaxWidth(p.width).Render(lines[i])
	}
	return strings.Join(lines, "\n")
}

// cursorRow marks the selected row of a list; the list being chosen from
// shows it highlighted, a list already chosen keeps only the mark.
func cursorRow(s *Styles, row string, selected, active bool) string {
	switch {
	case selected && active:
		return s.Form.Selected.Render(markCursor + " " + row)
	case selected:
		return markCursor + " " + row
	}
	return "  " + row
}

// releaseHelp is the help line of the release panel.
func (p *DashboardPage) releaseHelp() []key.Binding {
	k := p.keys
	switch p.release.step {
	case releaseTo:
		return []key.Binding{helpOnly("↑↓", "move"), withHelp(k.Open, "to this reviewer"), k.Stalled, withHelp(k.No, "back")}
	case releaseConfirm:
		return []key.Binding{withHelp(k.Yes, "move them"), withHelp(k.No, "back")}
	}
	return []key.Binding{helpOnly("↑↓", "move"), withHelp(k.Open, "their items"), k.Stalled, withHelp(k.No, "back")}
}
