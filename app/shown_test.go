package app

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/dberr"
)

// TestShownByRole: where the database lives is in the errors shown to
// anyone locally and to a lead over SSH, and withheld from a reviewer or a
// ci key over SSH, whose withheld errors go to OnWithheld as they were.
func TestShownByRole(t *testing.T) {
	a, st, _ := projectOn(t, "sqlite")
	var told []string
	a.OnWithheld(func(who Actor, err error) { told = append(told, who.Name+": "+err.Error()) })
	failure := fmt.Errorf("submit it_1: %w", &dberr.DBError{Path: st.Path(), Kind: dberr.ErrBusy})
	for _, tc := range []struct {
		actor Actor
		sees  bool
	}{
		{Actor{Name: "alice", Role: RoleReviewer, Source: SourceLocal}, true},
		{Actor{Source: SourceLocal}, true},
		{Actor{Name: "carol", Role: RoleLead, Source: SourceSSH, KeyFingerprint: "SHA256:c"}, true},
		{Actor{Name: "alice", Role: RoleReviewer, Source: SourceSSH, KeyFingerprint: "SHA256:a"}, false},
		{Actor{Name: "ci-bot", Role: RoleCI, Source: SourceSSH, KeyFingerprint: "SHA256:b"}, false},
	} {
		told = nil
		got := a.Shown(tc.actor, failure)
		if names := strings.Contains(got.Error(), st.Path()); names != tc.sees || tc.actor.SeesDatabase() != tc.sees {
			t.Errorf("%s: %q names the database: %v, want %v", tc.actor, got, names, tc.sees)
		}
		if !errors.Is(got, ErrBusy) {
			t.Errorf("%s: %q is not ErrBusy any more", tc.actor, got)
		}
		if withheld := len(told) == 1 && strings.Contains(told[0], st.Path()); withheld == tc.sees {
			t.Errorf("%s: the log was told %q", tc.actor, told)
		}
	}
	if a.Shown(Actor{Name: "alice", Role: RoleReviewer, Source: SourceSSH}, nil) != nil {
		t.Error("Shown(nil) is not nil")
	}
}
