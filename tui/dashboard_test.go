package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
)

// newDashboardRoot is a router showing only the dashboard over st, in
// NO_COLOR styles, at w×h, with its first computation done.
func newDashboardRoot(t *testing.T, st *store.Store, w, h int) (*Root, *DashboardPage) {
	t.Helper()
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(t, st, "carol"), Now: func() time.Time { return dashboardClock }}
	p := NewDashboardPage(c, DashboardOptions{Lead: "carol"})
	r := NewRoot(c, PageDashboard, map[PageID]Page{PageDashboard: p})
	r.Update(tea.WindowSizeMsg{Width: w, Height: h})
	runCmd(t, r, p.load())
	if p.data == nil {
		t.Fatalf("dashboard not computed: %v", p.loadErr)
	}
	return r, p
}

// runCmd runs one command and feeds its message back (batches and ticks
// are not followed: the poll loop would sleep).
func runCmd(t *testing.T, r *Root, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		return
	}
	if msg := cmd(); msg != nil {
		r.Update(msg)
	}
}

func press(r *Root, keys ...tea.KeyType) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = r.Update(tea.KeyMsg{Type: k})
	}
	return cmd
}

// TestDashboard runs the read-only tests over one shared fixture (the
// fixture submits every label in its own durable transaction, which is slow).
func TestDashboard(t *testing.T) {
	st := dashboardFixture(t, 40)
	t.Run("MatrixCursor", func(t *testing.T) { testDashboardMatrixCursor(t, st) })
	t.Run("CellItemsAndBack", func(t *testing.T) { testDashboardCellItemsAndBack(t, st) })
	t.Run("StaleItemDropped", func(t *testing.T) { testDashboardStaleItemDropped(t, st) })
	t.Run("RefreshKey", func(t *testing.T) { testDashboardRefreshKey(t, st) })
	t.Run("Goldens", func(t *testing.T) { testDashboardGoldens(t, st) })
	t.Run("NoColorMarksDiagonal", func(t *testing.T) { testDashboardNoColorMarksDiagonal(t, st) })
	t.Run("EmptyCellStays", func(t *testing.T) { testDashboardEmptyCellStays(t, st) })
	t.Run("ToolsScreen", func(t *testing.T) { testDashboardToolsScreen(t, st) })
	t.Run("SwitchToAdjudicate", func(t *testing.T) { testDashboardSwitchToAdjudicate(t, st) })
}

func testDashboardMatrixCursor(t *testing.T, st *store.Store) {
	r, p := newDashboardRoot(t, st, 80, 24)
	n := p.matrix.nRows
	if n < 3 {
		t.Fatalf("fixture gives only %d classes", n)
	}
	tests := []struct {
		name     string
		keys     []tea.KeyType
		row, col int
	}{
		{"starts top left", nil, 0, 0},
		{"up and left stop at the edge", []tea.KeyType{tea.KeyUp, tea.KeyLeft}, 0, 0},
		{"down right down", []tea.KeyType{tea.KeyDown, tea.KeyRight, tea.KeyDown}, 2, 1},
		{"left", []tea.KeyType{tea.KeyLeft}, 2, 0},
	}
	for _, tt := range tests {
		press(r, tt.keys...)
		if p.matrix.row != tt.row || p.matrix.col != tt.col {
			t.Errorf("%s: cursor at (%d,%d), want (%d,%d)", tt.name, p.matrix.row, p.matrix.col, tt.row, tt.col)
		}
	}
	for range n + 2 {
		press(r, tea.KeyDown, tea.KeyRight)
	}
	if p.matrix.row != n-1 || p.matrix.col != len(p.matrix.labels)-1 {
		t.Errorf("cursor ran past the grid: (%d,%d) of %d", p.matrix.row, p.matrix.col, n)
	}
}

func testDashboardCellItemsAndBack(t *testing.T, st *store.Store) {
	r, p := newDashboardRoot(t, st, 80, 24)
	// Find an off-diagonal cell with items: the model's mistakes.
	exp, pred := firstMistake(p)
	p.matrix.keepCursor(exp, pred)
	_, _, want := p.matrix.Selected()
	if want == 0 {
		t.Fatal("fixture has no off-diagonal cell")
	}
	press(r, tea.KeyEnter)
	if p.mode != modeCell || len(p.cell.rows) != want {
		t.Fatalf("enter: mode %v with %d items, want the cell's %d", p.mode, len(p.cell.rows), want)
	}
	view := ansi.Strip(r.View())
	first := p.data.Items[p.cell.rows[0]]
	if !strings.Contains(view, first.ID) || !strings.Contains(view, p.data.Items[p.cell.rows[0]].Kind) {
		t.Errorf("cell list does not show the item and its error kind:\n%s", view)
	}
	cmd := press(r, tea.KeyEnter)
	if p.mode != modeItem || p.item.id != first.ID {
		t.Fatalf("enter on the list: mode %v item %q, want item %s", p.mode, p.item.id, first.ID)
	}
	runCmd(t, r, cmd)
	if p.item.context == nil {
		t.Fatalf("item context not loaded: %v", p.item.loadErr)
	}
	view = ansi.Strip(r.View())
	for _, want := range []string{first.ID, "Gold", "Observed", "Context", markWrong + " " + p.item.item.Kind} {
		if !strings.Contains(view, want) {
			t.Errorf("item view lacks %q:\n%s", want, view)
		}
	}
	press(r, tea.KeyEsc)
	if p.mode != modeCell {
		t.Errorf("esc from the item: mode %v, want the list", p.mode)
	}
	press(r, tea.KeyEsc)
	if p.mode != modeOverview {
		t.Errorf("esc from the list: mode %v, want the overview", p.mode)
	}
	if e, pr, _ := p.matrix.Selected(); e != exp || pr != pred {
		t.Errorf("cursor moved to %s×%s", e, pr)
	}
}

func testDashboardStaleItemDropped(t *testing.T, st *store.Store) {
	r, p := newDashboardRoot(t, st, 80, 24)
	press(r, tea.KeyEnter)
	cmd := press(r, tea.KeyEnter)
	id := p.item.id
	if p.mode != modeItem {
		t.Fatalf("no item open (mode %v)", p.mode)
	}
	r.Update(dashboardItemMsg{id: "it_other", err: context.Canceled})
	if p.item.loadErr != nil || p.item.id != id {
		t.Fatalf("an answer for another item was applied")
	}
	runCmd(t, r, cmd)
	if p.item.context == nil {
		t.Fatal("the item's own answer was dropped")
	}
}

func TestDashboardRefreshOnlyWhenFingerprintChanged(t *testing.T) {
	st := dashboardFixture(t, 40)
	r, p := newDashboardRoot(t, st, 80, 24)
	before := p.data.Overall.Items

	poll := func() {
		t.Helper()
		_, cmd := r.Update(dashboardPollMsg{gen: p.pollGen})
		if cmd == nil {
			t.Fatal("poll issued no fingerprint read")
		}
		r.Update(cmd()) // the fingerprint
	}
	seq := p.loadSeq
	poll()
	if p.loading || p.loadSeq != seq {
		t.Fatalf("unchanged store: recomputed (seq %d → %d)", seq, p.loadSeq)
	}

	// A new gold item: a lead adjudicates an open dispute.
	ctx := context.Background()
	disputes, err := st.DisputedQueue(ctx, store.DisputeFilter{})
	if err != nil || len(disputes) == 0 {
		t.Fatalf("no dispute left to adjudicate (%v)", err)
	}
	if _, err := st.Resolve(ctx, store.Resolution{Item: disputes[0].Item, Lead: "carol", Pick: "bob", Reason: "bob is right"}); err != nil {
		t.Fatal(err)
	}
	poll()
	if !p.loading || p.loadSeq != seq+1 {
		t.Fatalf("changed store: no recompute (loading %v, seq %d)", p.loading, p.loadSeq)
	}
	// While a computation runs a poll does not start another.
	_, cmd := r.Update(dashboardPollMsg{gen: p.pollGen})
	if p.loadSeq != seq+1 || cmd == nil {
		t.Fatalf("poll during a load: seq %d, next tick %v", p.loadSeq, cmd != nil)
	}
	stale := dashboardLoadedMsg{seq: seq, data: &app.Dashboard{}}
	r.Update(stale)
	if p.data == stale.data || !p.loading {
		t.Fatal("a stale computation replaced the data")
	}
	runCmd(t, r, p.load())
	if got := p.data.Overall.Items; got != before+1 {
		t.Errorf("gold items %d after adjudicating one more, want %d", got, before+1)
	}
	if strings.Count(ansi.Strip(r.View()), "\n") != 23 {
		t.Errorf("view is not 24 lines")
	}
}

func testDashboardRefreshKey(t *testing.T, st *store.Store) {
	r, p := newDashboardRoot(t, st, 80, 24)
	seq := p.loadSeq
	_, cmd := r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r")})
	if cmd == nil || !p.loading || p.loadSeq != seq+1 {
		t.Fatalf("r did not start a computation")
	}
	if _, again := r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r")}); again != nil {
		t.Error("r while computing started a second computation")
	}
	runCmd(t, r, cmd)
	if p.loading {
		t.Error("still loading after the result")
	}
}

func testDashboardGoldens(t *testing.T, st *store.Store) {
	tests := []struct {
		name string
		w, h int
		keys []tea.KeyType
	}{
		{"dashboard_overview_80x24", 80, 24, nil},
		{"dashboard_overview_120x40", 120, 40, nil},
		{"dashboard_cell_80x24", 80, 24, []tea.KeyType{tea.KeyEnter}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, p := newDashboardRoot(t, st, tt.w, tt.h)
			if len(tt.keys) > 0 {
				p.matrix.keepCursor(firstMistake(p))
			}
			press(r, tt.keys...)
			assertGolden(t, tt.name, r.View())
		})
	}
	t.Run("dashboard_item_80x24", func(t *testing.T) {
		r, p := newDashboardRoot(t, st, 80, 24)
		p.matrix.keepCursor(firstMistake(p))
		press(r, tea.KeyEnter)
		runCmd(t, r, press(r, tea.KeyEnter))
		assertGolden(t, "dashboard_item_80x24", r.View())
	})
}

func TestDashboardEmptyState(t *testing.T) {
	st, _ := dashboardStore(t, 3)
	r, _ := newDashboardRoot(t, st, 80, 24)
	view := ansi.Strip(r.View())
	if !strings.Contains(view, "No gold items yet — label some.") {
		t.Errorf("no friendly empty state:\n%s", view)
	}
	assertGolden(t, "dashboard_empty_80x24", r.View())
	// Keys on an empty dashboard do nothing harmful.
	press(r, tea.KeyDown, tea.KeyRight, tea.KeyEnter)
}

func testDashboardNoColorMarksDiagonal(t *testing.T, st *store.Store) {
	r, _ := newDashboardRoot(t, st, 80, 24)
	v := r.View()
	if strings.Contains(v, "38;") {
		t.Error("NO_COLOR view has colour codes")
	}
	plain := ansi.Strip(v)
	if !strings.Contains(plain, markRight) || !strings.Contains(plain, markWrong) {
		t.Errorf("diagonal and off-diagonal cells are not marked without colour:\n%s", plain)
	}
}

// firstMistake is the first off-diagonal cell with items.
func firstMistake(p *DashboardPage) (expected, predicted string) {
	for _, c := range p.data.Confusion.Cells {
		if c.Expected != c.Predicted {
			return c.Expected, c.Predicted
		}
	}
	return "", ""
}

func testDashboardEmptyCellStays(t *testing.T, st *store.Store) {
	r, p := newDashboardRoot(t, st, 80, 24)
	press(r, tea.KeyRight) // cancel_order × create_return_label: no items
	if _, _, n := p.matrix.Selected(); n != 0 {
		t.Fatalf("fixture changed: the cell has %d items", n)
	}
	runCmd(t, r, press(r, tea.KeyEnter))
	if p.mode != modeOverview || !strings.Contains(r.Status().Text(), "no item has gold") {
		t.Errorf("enter on an empty cell: mode %v, status %q", p.mode, r.Status().Text())
	}
}

func testDashboardToolsScreen(t *testing.T, st *store.Store) {
	r, p := newDashboardRoot(t, st, 80, 24)
	r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("t")})
	if p.mode != modeTools {
		t.Fatalf("t: mode %v, want the tools screen", p.mode)
	}
	assertGolden(t, "dashboard_tools_80x24", r.View())
	worst := p.data.Tools
	press(r, tea.KeyDown, tea.KeyUp) // back on the worst tool
	press(r, tea.KeyEnter)
	if p.mode != modeCell || p.cell.tool != worst[0].Name || len(p.cell.rows) != worst[0].Items {
		t.Fatalf("enter on %s: mode %v, listing %q with %d items, want %d", worst[0].Name, p.mode, p.cell.tool, len(p.cell.rows), worst[0].Items)
	}
	if p.data.Items[p.cell.rows[0]].Correct {
		t.Error("the worst tool's list does not start with a failing item")
	}
	press(r, tea.KeyEsc)
	if p.mode != modeTools {
		t.Errorf("esc from a tool's items: mode %v, want the tools screen", p.mode)
	}
	press(r, tea.KeyEsc)
	if p.mode != modeOverview {
		t.Errorf("esc from the tools: mode %v, want the overview", p.mode)
	}
}

func testDashboardSwitchToAdjudicate(t *testing.T, st *store.Store) {
	c := &Common{Styles: StylesFor(true), Keys: DefaultKeyMap(), API: as(t, st, "carol"), Now: func() time.Time { return dashboardClock }}
	r := NewDashboardRoot(c, DashboardOptions{Lead: "carol"})
	r.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	p := r.Page(PageDashboard).(*DashboardPage)
	if !strings.Contains(ansi.Strip(r.View()), "a adjudicate") {
		t.Errorf("help does not offer adjudication:\n%s", ansi.Strip(r.View()))
	}
	_, cmd := r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
	runCmd(t, r, cmd)
	if r.Current() != PageAdjudicate {
		t.Errorf("a: showing %v, want the adjudication screen", r.Current())
	}
	if p.mode != modeOverview {
		t.Errorf("dashboard mode changed to %v", p.mode)
	}
	// And back: d on the adjudication screen returns to the dashboard.
	_, cmd = r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("d")})
	runCmd(t, r, cmd)
	if r.Current() != PageDashboard {
		t.Errorf("d on the adjudication screen: showing %v, want the dashboard", r.Current())
	}
}
