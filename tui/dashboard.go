package tui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/trace"
)

// DashboardOptions configure the dashboard screen.
type DashboardOptions struct {
	// Lead is who is looking: the agreement statistics are a lead's view.
	Lead string
	// Batch limits the dashboard to one batch ("" = all).
	Batch string
	// PollEvery is how often the store is checked for new labels (default 2 s).
	PollEvery time.Duration
	// Adjudicate says the adjudicate screen is registered beside this one,
	// so "a" switches to it.
	Adjudicate bool
}

// defaultPoll is how often the dashboard checks the store for changes.
const defaultPoll = 2 * time.Second

// dashboardMode is what the dashboard shows.
type dashboardMode int

const (
	modeOverview dashboardMode = iota // metrics, confusion matrix, worst tools
	modeCell                          // the items of one confusion cell or tool
	modeTools                         // every tool, worst first
	modeItem                          // one item, read-only
	modeRelease                       // move a reviewer's items to another (dashboard_release.go)
)

// DashboardPage previews how the production model's observed calls score
// against the current gold, and refreshes as labeling proceeds.
type DashboardPage struct {
	c    *Common
	opts DashboardOptions
	keys DashboardKeys

	width, height int
	mode          dashboardMode

	data    *app.Dashboard
	matrix  confusionMatrix
	loading bool
	loadSeq int // tags loads; a result with another seq is stale
	loadErr error

	cache *app.GoldCache // gold records of the last computation, per trace

	cell    cellList
	tools   cellCursor // over data.Tools in modeTools
	item    itemView
	release releasePanel
	pollGen int
	// profile indexes app.ProfileNames: the gold is scored as goldtrace
	// score --profile does; p switches to the next one.
	profile int
}

// NewDashboardPage is the dashboard over c.API.
func NewDashboardPage(c *Common, opts DashboardOptions) *DashboardPage {
	if opts.PollEvery <= 0 {
		opts.PollEvery = defaultPoll
	}
	p := &DashboardPage{c: c, opts: opts, keys: c.Keys.Dashboard, cache: &app.GoldCache{}}
	p.item.view = viewport.New(0, 0)
	p.keys.Adjudicate.SetEnabled(opts.Adjudicate)
	return p
}

// Messages of the dashboard's commands, each tagged so stale ones are dropped.
type (
	dashboardLoadedMsg struct {
		seq  int
		data *app.Dashboard
		err  error
	}
	dashboardPollMsg        struct{ gen int }
	dashboardFingerprintMsg struct {
		gen int
		fp  string
		err error
	}
	dashboardItemMsg struct {
		id   string
		item trace.Item
		err  error
	}
)

// Init loads the dashboard and starts polling.
func (p *DashboardPage) Init() tea.Cmd {
	return tea.Batch(p.load(), p.schedulePoll())
}

// load starts a computation; the one started last wins.
func (p *DashboardPage) load() tea.Cmd {
	p.loadSeq++
	p.loading = true
	seq, st, batch, now, cache := p.loadSeq, p.c.API, p.opts.Batch, p.c.Now, p.cache
	profile := app.ProfileNames[p.profile]
	return func() tea.Msg {
		d, err := st.Dashboard(context.Background(), batch, profile, now(), cache)
		return dashboardLoadedMsg{seq: seq, data: d, err: err}
	}
}

func (p *DashboardPage) schedulePoll() tea.Cmd {
	gen := p.pollGen
	return tea.Tick(p.opts.PollEvery, func(time.Time) tea.Msg { return dashboardPollMsg{gen: gen} })
}

func (p *DashboardPage) fingerprint() tea.Cmd {
	gen, st := p.pollGen, p.c.API
	return func() tea.Msg {
		fp, err := st.GoldFingerprint(context.Background())
		return dashboardFingerprintMsg{gen: gen, fp: fp, err: err}
	}
}

// Update handles keys and the results of its own commands.
func (p *DashboardPage) Update(msg tea.Msg) (Page, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		return p, p.handleKey(msg)
	case dashboardLoadedMsg:
		return p, p.loaded(msg)
	case dashboardPollMsg:
		if msg.gen != p.pollGen {
			return p, nil
		}
		if p.loading {
			return p, p.schedulePoll()
		}
		return p, p.fingerprint()
	case dashboardFingerprintMsg:
		if msg.gen != p.pollGen {
			return p, nil
		}
		var cmd tea.Cmd
		if msg.err == nil && !p.loading && (p.data == nil || msg.fp != p.data.Fingerprint) {
			cmd = p.load()
		}
		// A failed poll is not worth a message: the next one may work, and
		// a refresh (r) reports errors.
		return p, tea.Batch(cmd, p.schedulePoll())
	case dashboardItemMsg:
		if p.mode == modeItem && msg.id == p.item.id {
			p.item.loaded(msg, &p.c.Styles)
		}
		return p, nil
	case releaseUsersMsg:
		return p, p.releaseUsersLoaded(msg)
	case releaseDoneMsg:
		return p, p.releaseDone(msg)
	}
	if p.mode == modeItem {
		var cmd tea.Cmd
		p.item.view, cmd = p.item.view.Update(msg)
		return p, cmd
	}
	return p, nil
}

func (p *DashboardPage) loaded(msg dashboardLoadedMsg) tea.Cmd {
	if msg.seq != p.loadSeq {
		return nil
	}
	p.loading = false
	if msg.err != nil {
		p.loadErr = msg.err
		return ReportErr(msg.err)
	}
	p.loadErr = nil
	exp, pred, _ := p.matrix.Selected()
	p.data = msg.data
	p.matrix = newConfusionMatrix(msg.data.Confusion)
	p.layout()
	p.matrix.keepCursor(exp, pred)
	if p.mode == modeCell || p.mode == modeItem {
		// The list indexes into the data: refill it even behind an open item.
		p.cell.refill(p.data)
	}
	p.tools.move(0, len(p.data.Tools), p.cellRows())
	return nil
}

func (p *DashboardPage) handleKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	if p.mode == modeRelease {
		return p.releaseKey(msg)
	}
	switch {
	case key.Matches(msg, k.Refresh):
		if p.loading {
			return nil
		}
		return p.load()
	case key.Matches(msg, k.Adjudicate):
		return SwitchPage(PageAdjudicate, nil)
	case key.Matches(msg, k.Profile) && p.mode == modeOverview:
		p.profile = (p.profile + 1) % len(app.ProfileNames)
		return p.load()
	case key.Matches(msg, k.Release) && p.mode == modeOverview:
		return p.openRelease()
	}
	switch p.mode {
	case modeOverview:
		return p.overviewKey(msg)
	case modeCell:
		return p.cellKey(msg)
	case modeTools:
		return p.toolsKey(msg)
	case modeItem:
		if key.Matches(msg, k.Close) {
			p.mode = modeCell
			return nil
		}
		var cmd tea.Cmd
		p.item.view, cmd = p.item.view.Update(msg)
		return cmd
	}
	return nil
}

func (p *DashboardPage) overviewKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	switch {
	case key.Matches(msg, k.Up):
		p.matrix.Move(-1, 0)
	case key.Matches(msg, k.Down):
		p.matrix.Move(1, 0)
	case key.Matches(msg, k.Left):
		p.matrix.Move(0, -1)
	case key.Matches(msg, k.Right):
		p.matrix.Move(0, 1)
	case key.Matches(msg, k.Tools):
		if p.data != nil && len(p.data.Tools) > 0 {
			p.mode = modeTools
		}
	case key.Matches(msg, k.Open):
		if p.data == nil || p.matrix.Empty() {
			return nil
		}
		exp, pred, n := p.matrix.Selected()
		if n == 0 {
			return ReportStatus(fmt.Sprintf("no item has gold %s and seen %s", exp, pred))
		}
		p.cell = cellList{expected: exp, predicted: pred, from: modeOverview}
		p.cell.refill(p.data)
		p.mode = modeCell
	}
	return nil
}

func (p *DashboardPage) cellKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	switch {
	case key.Matches(msg, k.Close):
		p.mode = p.cell.from
	case key.Matches(msg, k.Up):
		p.cell.move(-1, p.cellRows())
	case key.Matches(msg, k.Down):
		p.cell.move(1, p.cellRows())
	case key.Matches(msg, p.c.Keys.Global.ScrollUp):
		p.cell.move(-p.cellRows(), p.cellRows())
	case key.Matches(msg, p.c.Keys.Global.ScrollDown):
		p.cell.move(p.cellRows(), p.cellRows())
	case key.Matches(msg, k.Open):
		i, ok := p.cell.selected()
		if !ok {
			return nil
		}
		return p.openItem(i)
	}
	return nil
}

func (p *DashboardPage) toolsKey(msg tea.KeyMsg) tea.Cmd {
	k := p.keys
	tools := p.data.Tools
	switch {
	case key.Matches(msg, k.Close):
		p.mode = modeOverview
	case key.Matches(msg, k.Up):
		p.tools.move(-1, len(tools), p.cellRows())
	case key.Matches(msg, k.Down):
		p.tools.move(1, len(tools), p.cellRows())
	case key.Matches(msg, p.c.Keys.Global.ScrollUp):
		p.tools.move(-p.cellRows(), len(tools), p.cellRows())
	case key.Matches(msg, p.c.Keys.Global.ScrollDown):
		p.tools.move(p.cellRows(), len(tools), p.cellRows())
	case key.Matches(msg, k.Open):
		if p.tools.cursor >= len(tools) {
			return nil
		}
		p.cell = cellList{tool: tools[p.tools.cursor].Name, from: modeTools}
		p.cell.refill(p.data)
		p.mode = modeCell
	}
	return nil
}

// openItem shows item i of the data and loads its conversation.
func (p *DashboardPage) openItem(i int) tea.Cmd {
	p.item = itemView{view: p.item.view, item: p.data.Items[i], id: p.data.Items[i].ID}
	p.item.view.SetContent(p.item.render(&p.c.Styles, p.width))
	p.item.view.GotoTop()
	p.mode = modeItem
	id, st := p.item.id, p.c.API
	return func() tea.Msg {
		it, err := st.Item(context.Background(), id)
		return dashboardItemMsg{id: id, item: it, err: err}
	}
}

// SetSize is the space under the router's chrome.
func (p *DashboardPage) SetSize(w, h int) {
	p.width, p.height = w, h
	p.layout()
}

// ShortHelp lists the keys that work in the current mode.
func (p *DashboardPage) ShortHelp() []key.Binding {
	k := p.keys
	switch p.mode {
	case modeCell:
		back := "back to matrix"
		if p.cell.from == modeTools {
			back = "back to tools"
		}
		return []key.Binding{helpOnly("↑↓", "move"), withHelp(k.Open, "open item"), withHelp(k.Close, back), k.Refresh}
	case modeTools:
		return []key.Binding{helpOnly("↑↓", "move"), withHelp(k.Open, "items of tool"), withHelp(k.Close, "back to matrix"), k.Refresh}
	case modeItem:
		return []key.Binding{helpOnly("↑↓ pgup/pgdn", "scroll"), withHelp(k.Close, "back to list")}
	case modeRelease:
		return p.releaseHelp()
	}
	switch {
	case p.data == nil: // computing, or it failed: nothing to release from yet
		return []key.Binding{k.Adjudicate, k.Refresh}
	case p.matrix.Empty():
		return []key.Binding{k.Adjudicate, k.Release, k.Refresh}
	}
	// Most important first: at 80 columns the line ends after release (the
	// overview itself offers t under the worst tools).
	return []key.Binding{helpOnly("←↑↓→", "move"), withHelp(k.Open, "items"), k.Adjudicate, k.Profile, k.Release, withHelp(k.Tools, "tools"), k.Refresh}
}

// FullHelp is the short help in one column.
func (p *DashboardPage) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

// Typing is always false: the dashboard has no text fields.
func (p *DashboardPage) Typing() bool { return false }

// Flush has nothing to save.
func (p *DashboardPage) Flush() tea.Cmd { return nil }

// helpOnly is a help-line entry standing for several bindings.
func helpOnly(keys, desc string) key.Binding {
	return key.NewBinding(key.WithKeys(keys), key.WithHelp(keys, desc))
}
