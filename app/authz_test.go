package app

import (
	"errors"
	"testing"
)

// TestAuthorizeTable walks every action × every role × no identity against
// the table written out here a second time, by hand: a change to who may do
// what has to be made in both places.
func TestAuthorizeTable(t *testing.T) {
	const (
		R = 1 << iota // reviewer
		L             // lead
		C             // ci
		N             // nobody (no identity)
	)
	want := map[Action]int{
		ActImport:             L | N,
		ActTracesRead:         R | L | N,
		ActSample:             L | N,
		ActAssign:             L,
		ActBatchesRead:        R | L | N,
		ActQueueRead:          R | L,
		ActLabelSubmit:        R | L,
		ActLabelReopen:        R | L,
		ActLabelsReadOwn:      R | L,
		ActLabelsReadAll:      L,
		ActLabelsImport:       R | L,
		ActLabelsImportOthers: L,
		ActStatusTotals:       R | L | N,
		ActStatusDetails:      L,
		ActAdjudicate:         L,
		ActGuideRead:          R | L | N,
		ActGuideSet:           L,
		ActSettingsRead:       R | L | N,
		ActSettingsSet:        L,
		ActUsersRead:          R | L | N,
		ActUsersManage:        L,
		ActExport:             L,
		ActDatasetRead:        R | L | C | N,
		ActScoreStore:         L,
		ActScoreDataset:       R | L | C | N,
		ActDashboard:          L,
		ActAuditRead:          L,
		ActMaintain:           L | N,
	}
	if len(want) != len(Actions()) {
		t.Fatalf("the test covers %d actions, there are %d", len(want), len(Actions()))
	}
	actors := []struct {
		bit   int
		actor Actor
	}{
		{R, Actor{Name: "alice", Role: RoleReviewer, Source: SourceLocal}},
		{R, Actor{Name: "alice", Role: RoleReviewer, Source: SourceSSH, KeyFingerprint: "SHA256:a"}},
		{L, Actor{Name: "carol", Role: RoleLead, Source: SourceLocal}},
		{L, Actor{Name: "carol", Role: RoleLead, Source: SourceSSH, KeyFingerprint: "SHA256:c"}},
		{C, Actor{Name: "ci-bot", Role: RoleCI, Source: SourceSSH, KeyFingerprint: "SHA256:b"}},
		{N, Actor{Source: SourceLocal}},
	}
	for _, act := range Actions() {
		if act.String() == "" || actionNames[act][1] == "" {
			t.Errorf("action %d has no name", act)
		}
		for _, a := range actors {
			err := Authorize(a.actor, act)
			allowed := want[act]&a.bit != 0
			if allowed && err != nil {
				t.Errorf("%s × %s: refused: %v", act, a.actor, err)
			}
			if !allowed {
				var de *DeniedError
				if !errors.As(err, &de) || !errors.Is(err, ErrForbidden) {
					t.Errorf("%s × %s: allowed (%v)", act, a.actor, err)
				}
			}
		}
	}
	// A role the table does not know, or an action it does not list, is refused.
	if Authorize(Actor{Name: "eve", Role: "admin"}, ActStatusTotals) == nil {
		t.Error("unknown role allowed")
	}
	if Authorize(Actor{Name: "carol", Role: RoleLead}, Action(999)) == nil {
		t.Error("unknown action allowed")
	}
}

func TestDeniedErrorSaysWhoMay(t *testing.T) {
	for _, c := range []struct {
		actor Actor
		act   Action
		want  string
	}{
		{Actor{Name: "dave", Role: RoleReviewer, Source: SourceLocal}, ActExport, "dave is a reviewer; only a lead may export a dataset version"},
		{Actor{Source: SourceLocal}, ActGuideSet, "only a lead may set the guide: --as LEAD is required"},
		{Actor{Name: "ci-bot", Role: RoleCI, Source: SourceSSH, KeyFingerprint: "SHA256:x"}, ActQueueRead, "ci-bot (ssh key SHA256:x) is a ci; only a reviewer or lead may open a label queue"},
	} {
		if got := Authorize(c.actor, c.act).Error(); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
