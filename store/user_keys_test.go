package store

import (
	"cmp"
	"context"
	"errors"
	"strings"
	"testing"
)

// Two keys, alice's and bob's, for the tests below.
var (
	ka = UserKey{Fingerprint: "SHA256:aaa", Key: "ssh-ed25519 AAAA alice"}
	kb = UserKey{Fingerprint: "SHA256:bbb", Key: "ssh-ed25519 BBBB bob"}
)

func TestUserKeysAreUniqueAcrossUsersAndRemovable(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		if err := st.AddUserWithKeys(ctx, "alice", RoleReviewer, []UserKey{ka}); err != nil {
			t.Fatal(err)
		}
		// Adding the same key again to its owner changes nothing.
		if err := st.AddUserKey(ctx, "alice", ka); err != nil {
			t.Fatalf("re-adding alice's own key: %v", err)
		}
		// A key of alice's on bob is refused, and bob is not half created.
		err := st.AddUserWithKeys(ctx, "bob", RoleReviewer, []UserKey{kb, ka})
		if !errors.Is(err, ErrConflict) {
			t.Fatalf("duplicate key on two users: %v, want ErrConflict", err)
		}
		if _, err := st.User(ctx, "bob"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("bob after the refused add: %v, want not found", err)
		}
		if _, err := st.KeyUser(ctx, kb.Fingerprint); !errors.Is(err, ErrNotFound) {
			t.Fatalf("bob's key after the refused add: %v, want not found", err)
		}
		if err := st.AddUserKey(ctx, "nobody", kb); !errors.Is(err, ErrNotFound) {
			t.Fatalf("key for a missing user: %v, want ErrNotFound", err)
		}
		u, err := st.KeyUser(ctx, ka.Fingerprint)
		if err != nil || u.Name != "alice" || u.Role != RoleReviewer {
			t.Fatalf("KeyUser = %+v, %v; want alice reviewer", u, err)
		}
		keys, err := st.UserKeys(ctx)
		if err != nil || len(keys["alice"]) != 1 || keys["alice"][0].Key != ka.Key {
			t.Fatalf("UserKeys = %+v, %v", keys, err)
		}
		if err := st.RemoveUserKey(ctx, "alice", "SHA256:zzz"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("removing a key alice does not have: %v", err)
		}
		if err := st.RemoveUserKey(ctx, "alice", ka.Fingerprint); err != nil {
			t.Fatal(err)
		}
		if _, err := st.KeyUser(ctx, ka.Fingerprint); !errors.Is(err, ErrNotFound) {
			t.Fatalf("removed key still maps to a user: %v", err)
		}
		// The key is free again, so bob may have it now.
		if err := st.AddUserWithKeys(ctx, "bob", RoleReviewer, []UserKey{ka}); err != nil {
			t.Fatal(err)
		}
		kept, err := st.RemoveUser(ctx, "bob")
		if err != nil || kept {
			t.Fatalf("RemoveUser(bob) = %v, %v; want removed outright", kept, err)
		}
		if _, err := st.KeyUser(ctx, ka.Fingerprint); !errors.Is(err, ErrNotFound) {
			t.Fatalf("a removed user's key still maps to a user: %v", err)
		}
		if _, err := st.RemoveUser(ctx, "bob"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("removing bob twice: %v", err)
		}
	})
}

// TestUserWithKey: the one read an SSH action makes says who the user is
// now and whether the key is still theirs.
func TestUserWithKey(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		for _, u := range []struct {
			name, role string
			key        UserKey
		}{{"alice", RoleReviewer, ka}, {"bob", RoleLead, kb}} {
			if err := st.AddUserWithKeys(ctx, u.name, u.role, []UserKey{u.key}); err != nil {
				t.Fatal(err)
			}
		}
		check := func(name, fp string, wantRole string, wantTheirs bool) {
			t.Helper()
			u, theirs, err := st.UserWithKey(ctx, name, fp)
			if err != nil || u.Role != wantRole || theirs != wantTheirs {
				t.Errorf("UserWithKey(%s, %s) = %s %v %v; want %s %v", name, fp, u.Role, theirs, err, wantRole, wantTheirs)
			}
		}
		check("alice", ka.Fingerprint, RoleReviewer, true)
		check("alice", kb.Fingerprint, RoleReviewer, false) // bob's key
		check("alice", "", RoleReviewer, false)
		check("alice", "SHA256:none", RoleReviewer, false)
		check("bob", kb.Fingerprint, RoleLead, true)
		if err := st.AddUser(ctx, "alice", RoleLead); err != nil {
			t.Fatal(err)
		}
		check("alice", ka.Fingerprint, RoleLead, true) // a role change shows at once
		if err := st.RemoveUserKey(ctx, "alice", ka.Fingerprint); err != nil {
			t.Fatal(err)
		}
		check("alice", ka.Fingerprint, RoleLead, false) // so does a removed key
		if _, _, err := st.UserWithKey(ctx, "carol", ka.Fingerprint); !errors.Is(err, ErrNotFound) {
			t.Errorf("unknown user: %v, want ErrNotFound", err)
		}
	})
}

// The project's only lead cannot be demoted or removed in the store's own
// transaction, whatever the caller checked before: two leads doing it to
// each other at once leave one lead, never none.
func TestTheOnlyLeadStays(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		for _, u := range []struct{ name, role string }{{"carol", RoleLead}, {"erin", RoleLead}, {"alice", RoleReviewer}} {
			if err := st.AddUserWithKeys(ctx, u.name, u.role, nil); err != nil {
				t.Fatal(err)
			}
		}
		// Both leads demote each other at once: one of the two must fail.
		errs := make(chan error, 2)
		for _, name := range []string{"carol", "erin"} {
			go func() { errs <- st.AddUserWithKeys(ctx, name, RoleReviewer, nil) }()
		}
		e1, e2 := <-errs, <-errs
		if (e1 == nil) == (e2 == nil) || !errors.Is(cmp.Or(e1, e2), ErrConflict) {
			t.Fatalf("two demotions at once: %v / %v; want exactly one refused as a conflict", e1, e2)
		}
		counts, err := st.UserCounts(ctx)
		if err != nil || counts[RoleLead] != 1 {
			t.Fatalf("leads left: %v %v", counts, err)
		}
		lead := "carol"
		if u, _ := st.User(ctx, "carol"); u.Role != RoleLead {
			lead = "erin"
		}
		if _, err := st.RemoveUser(ctx, lead); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "only lead") {
			t.Errorf("removing the only lead: %v", err)
		}
		if err := st.AddUserWithKeys(ctx, "alice", RoleReviewer, nil); err != nil {
			t.Errorf("a reviewer's unchanged role: %v", err)
		}
	})
}
