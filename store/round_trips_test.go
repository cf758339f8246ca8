package store

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
)

// The round trips a reviewer's writes make to PostgreSQL, counted by a
// proxy in front of the server: each is a wake-up of a server backend,
// which on a busy machine waits its turn for a core, so they bound a
// submit's latency under load. A submit (with its audit entry and the
// check that the SSH key is still the reviewer's) and a skip are two,
// whether or not they settle the item; a draft's autosave (not audited)
// is one, and so is an audit entry written on its own (a lead's read, such
// as every status command over SSH). Loading the next item after a submit
// (NextWork: the assignment, the item, its draft, notes, the guide and the
// progress of a short queue) is one.
func TestReviewerRoundTrips(t *testing.T) {
	st := openEngine(t, "postgres")
	ctx := context.Background()
	ids := reviewersBatch(t, st, 6, "alice", "bob", "carol")
	if err := st.AddUserKey(ctx, "alice", ka); err != nil {
		t.Fatal(err)
	}
	dsn, trips := pgtest.CountTrips(t, st.Path())
	proxied, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer proxied.Close()
	proxied.Now = st.Now
	as := func(item string) context.Context {
		return WithAudit(ctx, AuditEntry{Actor: "alice", Role: RoleReviewer, Source: "ssh", KeyFingerprint: ka.Fingerprint,
			Action: "label.submit", Object: item})
	}
	// A submit that carries the app's check of the user and their key
	// (UserCheck, decided by Then before the commit) is still two.
	var checks int
	checked := func(item string) context.Context {
		return WithUserCheck(as(item), &UserCheck{Name: "alice", Fingerprint: ka.Fingerprint, Then: func(c *UserCheck) error {
			if !c.Found || !c.KeyIsTheirs || c.User.Role != RoleReviewer {
				t.Errorf("the check read %+v", c)
			}
			checks++
			return nil
		}})
	}
	count := func(what string, want int64, fn func() error) {
		t.Helper()
		n := trips.N()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got := trips.N() - n
		t.Logf("%s: %d round trips", what, got)
		if want > 0 && got > want {
			t.Errorf("%s: %d round trips, want at most %d", what, got, want)
		}
	}
	// A check that asserts the decision (UserCheck.Roles).
	guarded := func(item string, roles ...string) context.Context {
		return WithUserCheck(ctx, &UserCheck{Name: "alice", Fingerprint: ka.Fingerprint, Roles: roles, NeedKey: true,
			Then: func(c *UserCheck) error {
				checks++
				if !c.Found || !c.KeyIsTheirs || !slices.Contains(roles, c.User.Role) {
					return errors.New("refused by Then")
				}
				return nil
			}})
	}
	// The first of each kind prepares its statements on the connection.
	warm := func(i int) {
		if err := proxied.SaveDraft(as(ids[i]), ids[i], "alice", []byte(`{"a":1}`), 3); err != nil {
			t.Fatal(err)
		}
		if _, err := proxied.SubmitLabel(as(ids[i]), callLabel(ids[i], "alice", `{"order_id":"ORD-1"}`)); err != nil {
			t.Fatal(err)
		}
		if err := proxied.SkipItem(as(ids[i]), ids[i], "bob", "unclear"); err != nil {
			t.Fatal(err)
		}
		if _, err := proxied.SubmitLabel(checked(ids[i]), callLabel(ids[i], "carol", `{"order_id":"ORD-1"}`)); err != nil {
			t.Fatal(err)
		}
	}
	warm(0)
	warm(1)
	if err := proxied.SaveDraft(guarded(ids[3], RoleReviewer), ids[3], "alice", []byte(`{"a":0}`), 1); err != nil {
		t.Fatal(err)
	}
	if _, err := proxied.NextAssignment(ctx, "bob", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := proxied.ItemWork(ctx, ids[4], "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := proxied.NextWork(ctx, "bob", ""); err != nil {
		t.Fatal(err)
	}
	count("draft", 1, func() error { return proxied.SaveDraft(ctx, ids[2], "alice", []byte(`{"a":1}`), 3) })
	count("audited draft", 2, func() error { return proxied.SaveDraft(as(ids[2]), ids[2], "alice", []byte(`{"a":2}`), 4) })
	count("submit", 2, func() error {
		_, err := proxied.SubmitLabel(as(ids[2]), callLabel(ids[2], "alice", `{"order_id":"ORD-1"}`))
		return err
	})
	count("checked submit", 2, func() error {
		_, err := proxied.SubmitLabel(checked(ids[5]), callLabel(ids[5], "alice", `{"order_id":"ORD-1"}`))
		return err
	})
	count("audit entry", 1, func() error {
		return proxied.AppendAudit(ctx, AuditEntry{Actor: "alice", Role: RoleReviewer, Source: "ssh", KeyFingerprint: ka.Fingerprint,
			Action: "queue.read", Object: "status"})
	})
	count("next assignment", 1, func() error { _, err := proxied.NextAssignment(ctx, "bob", ""); return err })
	count("item work", 1, func() error { _, err := proxied.ItemWork(ctx, ids[3], "bob"); return err })
	count("next work", 1, func() error {
		nw, err := proxied.NextWork(ctx, "bob", "")
		if err == nil && nw.Progress == nil {
			t.Error("next work: bob's short queue was not counted")
		}
		return err
	})
	count("skip", 2, func() error { return proxied.SkipItem(as(ids[2]), ids[2], "bob", "unclear") })
	count("settling submit", 2, func() error {
		s, err := proxied.SubmitLabel(as(ids[2]), callLabel(ids[2], "carol", `{"order_id":"ORD-1"}`))
		if err == nil && !s.Settled {
			t.Error("the last label did not settle the item")
		}
		return err
	})
	// A draft whose check asserts the decision (UserCheck.Roles) is one.
	count("checked draft", 1, func() error {
		return proxied.SaveDraft(guarded(ids[3], RoleReviewer, RoleLead), ids[3], "alice", []byte(`{"a":3}`), 5)
	})
	if checks != 5 {
		t.Errorf("the check decided %d times, want 5", checks)
	}
	// One the assertion refuses writes nothing, and Then says why.
	if err := proxied.SaveDraft(guarded(ids[4], RoleLead), ids[4], "alice", []byte(`{"a":4}`), 6); err == nil || err.Error() != "refused by Then" {
		t.Errorf("a draft refused by its check: %v", err)
	}
	if _, _, err := st.Draft(ctx, ids[4], "alice"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a draft refused by its check was saved (%v)", err)
	}
}
