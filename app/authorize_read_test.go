package app

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
)

// The label screen's reads and writes decide on the actor's user and key
// as they are at the moment of the action, on both engines: a role taken
// away, a key removed or a user removed is refused at the very next read,
// which then returns nothing it read, or write, which writes nothing; a
// refusal is audited as before.
func TestQueueReadsRefuseAtOnce(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		st, item := oneItemOn(t, engine)
		ctx := context.Background()
		key := store.UserKey{Fingerprint: "SHA256:alice", Key: "ssh-ed25519 AAAA alice"}
		if err := st.AddUserKey(ctx, "alice", key); err != nil {
			t.Fatal(err)
		}
		a := New(st)
		alice := a.As(Actor{Name: "alice", Role: RoleReviewer, Source: SourceSSH, KeyFingerprint: key.Fingerprint})
		reads := func(s *Session, who string) (LabelWork, map[string]int, error, error) {
			w, werr := s.LabelWork(ctx, who, "", "", nil)
			p, perr := s.Progress(ctx, who, "")
			return w, p, werr, perr
		}
		w, p, werr, perr := reads(alice, "alice")
		if werr != nil || perr != nil || w.Item.ID != item || p[store.AssignPending] != 1 {
			t.Fatalf("alice's queue: %v %v item %q progress %v", werr, perr, w.Item.ID, p)
		}
		refused := func(what string, s *Session, who, words string) {
			t.Helper()
			w, p, werr, perr := reads(s, who)
			for _, err := range []error{werr, perr} {
				if !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), words) {
					t.Errorf("%s: %v, want refused saying %q", what, err, words)
				}
			}
			if !reflect.DeepEqual(w, LabelWork{}) || p != nil {
				t.Errorf("%s: refused, yet got item %q, progress %v", what, w.Item.ID, p)
			}
			// So is the item opened by its id.
			if w, err := s.LabelWork(ctx, who, "", item, nil); !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), words) || !reflect.DeepEqual(w, LabelWork{}) {
				t.Errorf("%s: the item by its id: %v, item %q; want refused saying %q", what, err, w.Item.ID, words)
			}
			// A write is refused too, and writes nothing.
			for _, err := range []error{
				s.SubmitLabel(ctx, label(item, who, "ORD-1")),
				s.SkipItem(ctx, item, who, "unclear"),
				s.SaveDraft(ctx, item, who, []byte(`{"rationale":"x"}`), 3),
			} {
				if !errors.Is(err, ErrForbidden) || !strings.Contains(err.Error(), words) {
					t.Errorf("%s: a write: %v, want refused saying %q", what, err, words)
				}
			}
			if as, err := st.Assignment(ctx, item, "alice"); err != nil || as.Status != store.AssignPending {
				t.Errorf("%s: alice's assignment after refused writes: %+v %v", what, as, err)
			}
			if _, _, err := st.Draft(ctx, item, "alice"); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("%s: a refused draft was saved (%v)", what, err)
			}
		}
		denied := func() int {
			log, err := st.AuditLog(ctx, store.AuditFilter{Actor: "alice"})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, e := range log {
				if e.Outcome == store.AuditDenied {
					n++
				}
			}
			return n
		}

		// A role that may not read a queue: refused, and audited once a read.
		if err := st.AddUser(ctx, "alice", store.RoleCI); err != nil {
			t.Fatal(err)
		}
		refused("demoted", alice, "alice", "alice (ssh key SHA256:alice) is a ci")
		if n := denied(); n != 6 {
			t.Errorf("%d refusals of the demoted alice in the audit log, want 6", n)
		}
		if err := st.AddUser(ctx, "alice", store.RoleReviewer); err != nil {
			t.Fatal(err)
		}
		if _, _, werr, perr := reads(alice, "alice"); werr != nil || perr != nil {
			t.Fatalf("alice a reviewer again: %v %v", werr, perr)
		}

		// The key removed: refused (not audited: it is no longer theirs).
		if err := st.RemoveUserKey(ctx, "alice", key.Fingerprint); err != nil {
			t.Fatal(err)
		}
		refused("key removed", alice, "alice", "no longer belongs to alice")

		// The user removed (dave has done nothing, so he goes whole).
		dave := a.As(Actor{Name: "dave", Role: RoleReviewer, Source: SourceLocal})
		if w, _, werr, perr := reads(dave, "dave"); werr != nil || perr != nil || !w.Empty || w.Progress == nil {
			t.Fatalf("dave's empty queue: %v %v %+v", werr, perr, w)
		}
		if kept, err := st.RemoveUser(ctx, "dave"); err != nil || kept {
			t.Fatalf("remove dave: kept %v, %v", kept, err)
		}
		refused("user removed", dave, "dave", "user dave no longer exists")

		// A role changed since the session began is the one audited.
		bob := a.As(Actor{Name: "bob", Role: RoleReviewer, Source: SourceLocal})
		if err := st.AddUser(ctx, "bob", store.RoleLead); err != nil {
			t.Fatal(err)
		}
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-1")); err != nil {
			t.Fatal(err)
		}
		log, err := st.AuditLog(ctx, store.AuditFilter{Actor: "bob", Action: ActLabelSubmit.String()})
		if err != nil || len(log) != 1 || log[0].Role != store.RoleLead || log[0].Outcome != store.AuditOK {
			t.Errorf("bob's submit in the audit log: %+v %v", log, err)
		}

		// Another's queue is not found, as before, without reading it.
		carol := a.As(Actor{Name: "carol", Role: RoleLead, Source: SourceLocal})
		if _, _, werr, perr := reads(carol, "bob"); !errors.Is(werr, ErrNotFound) || !errors.Is(perr, ErrNotFound) {
			t.Errorf("carol reading bob's queue: %v %v, want not found", werr, perr)
		}
	})
}

// On PostgreSQL the label screen's reads and writes carry the authorize
// read in their own round trips: the next item is one (the actor's user
// and key, the queue's next assignment, the item, its draft, notes and
// guide, and the progress of a short queue), a submit two (the check with
// the label's writes; the commit): a submit cycle is three, where it was
// eight (five without the progress counted with the item). Progress
// asked on its own is one, and so is an item opened by its id (the check,
// whether it is the actor's, and the item). A
// draft's autosave is one: its check asserts the decision in the round
// that commits.
func TestQueueReadRoundTrips(t *testing.T) {
	st, item := oneItemOn(t, "postgres")
	ctx := context.Background()
	key := store.UserKey{Fingerprint: "SHA256:alice", Key: "ssh-ed25519 AAAA alice"}
	if err := st.AddUserKey(ctx, "alice", key); err != nil {
		t.Fatal(err)
	}
	// dave's assignment keeps the item open, so neither submit settles it.
	execAll(t, st, []string{`INSERT INTO assignments(item_id, reviewer, batch, position, updated_at) VALUES ('` + item + `', 'dave', 'b1', 0, 'now')`})
	dsn, trips := pgtest.CountTrips(t, st.Path())
	proxied, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer proxied.Close()
	alice := New(proxied).As(Actor{Name: "alice", Role: RoleReviewer, Source: SourceSSH, KeyFingerprint: key.Fingerprint})
	warm := true // the first of each prepares its statements on the connection
	count := func(what string, want int64, fn func() error) {
		t.Helper()
		n := trips.N()
		if err := fn(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		got := trips.N() - n
		t.Logf("%s: %d round trips", what, got)
		if !warm && got > want {
			t.Errorf("%s: %d round trips, want at most %d", what, got, want)
		}
	}
	for _, w := range []bool{true, false} {
		warm = w
		count("next item", 1, func() error {
			w, err := alice.LabelWork(ctx, "alice", "", "", nil)
			if err == nil && (w.Item.ID != item || w.Progress[store.AssignPending] != 1 || len(w.Progress) != 1) {
				t.Errorf("next item %q with progress %v, want %q with one pending", w.Item.ID, w.Progress, item)
			}
			return err
		})
		count("progress", 1, func() error { _, err := alice.Progress(ctx, "alice", ""); return err })
		count("an item by its id", 1, func() error {
			w, err := alice.LabelWork(ctx, "alice", "", item, nil)
			if err == nil && w.Item.ID != item {
				t.Errorf("item %q, want %q", w.Item.ID, item)
			}
			return err
		})
	}
	// A draft's autosave is one, with the check, and a submit two: bob's
	// prepare the statements.
	bob := New(proxied).As(Actor{Name: "bob", Role: RoleReviewer, Source: SourceLocal})
	warm = true
	count("bob's draft", 1, func() error { return bob.SaveDraft(ctx, item, "bob", []byte(`{"rationale":"b"}`), 2) })
	count("bob's submit", 2, func() error { return bob.SubmitLabel(ctx, label(item, "bob", "ORD-1")) })
	warm = false
	count("draft", 1, func() error { return alice.SaveDraft(ctx, item, "alice", []byte(`{"rationale":"a"}`), 2) })
	count("submit", 2, func() error { return alice.SubmitLabel(ctx, label(item, "alice", "ORD-1")) })
}
