package tui

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
)

// releaseFixture is a store where alice and bob are assigned four items in
// batch b1, bob skipped the first two, and dave is a reviewer without
// assignments. It returns the items.
func releaseFixture(t *testing.T) (*store.Store, []string) {
	t.Helper()
	ctx := context.Background()
	st, cases := dashboardStore(t, 6)
	if err := st.AddUser(ctx, "dave", store.RoleReviewer); err != nil {
		t.Fatal(err)
	}
	b := store.NewBatch{Name: "b1", Seed: 1, PerItem: 2, CreatedBy: "carol"}
	var items []string
	for _, c := range cases[:4] {
		items = append(items, c.Expected[0].ItemID)
		b.Items = append(b.Items, store.BatchItem{ItemID: c.Expected[0].ItemID, Reviewers: []string{"alice", "bob"}})
	}
	if err := st.CreateBatch(ctx, b); err != nil {
		t.Fatal(err)
	}
	for _, id := range items[:2] {
		if err := st.SkipItem(ctx, id, "bob", "needs the refund policy"); err != nil {
			t.Fatal(err)
		}
	}
	return st, items
}

func typeKey(r *Root, s string) tea.Cmd {
	_, cmd := r.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
	return cmd
}

// TestDashboardRelease drives the release from the dashboard as a lead
// would: m, whose items (a reviewer with nothing skipped is refused with a
// word), to whom, a confirmation (n goes back), y; bob's skipped items are
// then dave's, the rest of bob's queue stays his, and the status line says
// what moved.
func TestDashboardRelease(t *testing.T) {
	ctx := context.Background()
	st, items := releaseFixture(t)
	r, p := newDashboardRoot(t, st, 80, 24)
	r.status.after = noTimer
	runCmd(t, r, typeKey(r, "m"))
	if p.mode != modeRelease || p.release.users == nil {
		t.Fatalf("m: mode %v, users %v (%v)", p.mode, p.release.users, p.release.loadErr)
	}
	if got := p.release.from; len(got) != 2 || got[0] != (reviewerLoad{"alice", 0, 4}) || got[1] != (reviewerLoad{"bob", 2, 2}) {
		t.Fatalf("reviewers %+v", got)
	}
	runCmd(t, r, press(r, tea.KeyEnter)) // alice has nothing skipped
	if p.release.step != releaseFrom || !strings.Contains(r.Status().Text(), "alice has no skipped items") {
		t.Fatalf("enter on alice: step %v, status %q", p.release.step, r.Status().Text())
	}
	press(r, tea.KeyDown, tea.KeyEnter)
	if p.release.step != releaseTo || strings.Join(p.release.to, ",") != "alice,carol,dave" {
		t.Fatalf("enter on bob: step %v, to %q", p.release.step, p.release.to)
	}
	press(r, tea.KeyDown, tea.KeyDown, tea.KeyDown, tea.KeyEnter) // the cursor stops on dave
	if p.release.step != releaseConfirm {
		t.Fatalf("enter on dave: step %v", p.release.step)
	}
	r.status.Dismiss() // the word about alice
	assertGolden(t, "dashboard_release_80x24", r.View())
	typeKey(r, "n")
	if p.release.step != releaseTo {
		t.Fatalf("n: step %v, want back to choosing the reviewer", p.release.step)
	}
	press(r, tea.KeyEnter)
	cmd := typeKey(r, "y")
	if cmd == nil || !p.release.running {
		t.Fatal("y started no release")
	}
	if typeKey(r, "y") != nil || typeKey(r, "n") != nil || p.release.step != releaseConfirm {
		t.Error("keys during the release changed it")
	}
	drain(r, cmd)
	if p.mode != modeOverview || r.Status().Text() != "released 2 item(s) from bob to dave" || r.Status().IsError() {
		t.Fatalf("after y: mode %v, status %q", p.mode, r.Status().Text())
	}
	for i, id := range items {
		_, errDave := st.Assignment(ctx, id, "dave")
		_, errBob := st.Assignment(ctx, id, "bob")
		if moved := i < 2; moved != (errDave == nil) || moved != errors.Is(errBob, store.ErrNotFound) {
			t.Errorf("item %d: dave %v, bob %v (moved: %v)", i, errDave, errBob, moved)
		}
	}
	if got := reviewerLoads(&p.data.Status); len(got) != 3 || got[2] != (reviewerLoad{"dave", 0, 2}) {
		t.Errorf("the dashboard was not refreshed: %+v", got)
	}
}

// TestDashboardReleaseStalled: s adds pending items nobody touched for a
// day or more, and the confirmation says so; esc leaves without writing.
func TestDashboardReleaseStalled(t *testing.T) {
	ctx := context.Background()
	st, items := releaseFixture(t)
	r, p := newDashboardRoot(t, st, 80, 24)
	r.status.after = noTimer
	p.c.Now = func() time.Time { return dashboardClock.Add(48 * time.Hour) } // the assignments are two days old
	runCmd(t, r, typeKey(r, "m"))
	typeKey(r, "s")
	press(r, tea.KeyEnter) // alice: nothing skipped, but 4 pending untouched for 1d
	press(r, tea.KeyDown, tea.KeyDown, tea.KeyEnter)
	view := ansi.Strip(r.View())
	if p.release.step != releaseConfirm || !strings.Contains(view, "Move alice's 0 skipped item(s) and the pending ones untouched for 1d to dave?") {
		t.Fatalf("step %v:\n%s", p.release.step, view)
	}
	press(r, tea.KeyEsc, tea.KeyEsc, tea.KeyEsc)
	if p.mode != modeOverview {
		t.Fatalf("esc ×3: mode %v", p.mode)
	}
	if _, err := st.Assignment(ctx, items[3], "alice"); err != nil {
		t.Fatalf("esc released: %v", err)
	}
	runCmd(t, r, typeKey(r, "m"))
	typeKey(r, "s")
	press(r, tea.KeyEnter, tea.KeyDown, tea.KeyDown, tea.KeyEnter)
	drain(r, typeKey(r, "y"))
	if r.Status().Text() != "released 4 item(s) from alice to dave" {
		t.Fatalf("status %q", r.Status().Text())
	}
}

// TestDashboardProfiles: p scores the same gold under the next profile,
// as goldtrace score --profile does, and the header names the profile and
// shows a seed system's own metric keys.
func TestDashboardProfiles(t *testing.T) {
	st := dashboardFixture(t, 40)
	r, p := newDashboardRoot(t, st, 80, 24)
	if p.data.Profile != "default" || !strings.Contains(ansi.Strip(r.View()), "profile default") {
		t.Fatalf("initial profile %q", p.data.Profile)
	}
	for _, want := range app.ProfileNames[1:] {
		runCmd(t, r, typeKey(r, "p"))
		if p.data.Profile != want {
			t.Fatalf("p: profile %q, want %s", p.data.Profile, want)
		}
		view := ansi.Strip(r.View())
		if !strings.Contains(view, "profile "+want) {
			t.Errorf("header does not name %s:\n%s", want, view)
		}
		for _, sr := range p.data.Overall.Seed {
			if !strings.Contains(view, sr.Name+" "+app.FormatRate(sr.Value)) {
				t.Errorf("%s: header lacks %s:\n%s", want, sr.Name, view)
			}
		}
		if strings.Count(view, "\n") != 23 {
			t.Errorf("%s: view is not 24 lines", want)
		}
		if want == "tutorial" {
			assertGolden(t, "dashboard_profile_tutorial_80x24", r.View())
		}
	}
	runCmd(t, r, typeKey(r, "p"))
	if p.data.Profile != "default" {
		t.Errorf("p after the last profile: %q, want default again", p.data.Profile)
	}
}
