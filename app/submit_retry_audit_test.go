package app

import (
	"context"
	"errors"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
)

// submitEntries are the audit log's entries for reviewer, as a lead reads
// them (goldtrace audit --actor REVIEWER).
func submitEntries(t *testing.T, a *App, reviewer string) []store.AuditEntry {
	t.Helper()
	log, err := a.AuditLog(context.Background(), actor(t, a, "carol"), store.AuditFilter{Actor: reviewer})
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// wantOneSubmit fails unless log is one entry: reviewer's submit of item, ok.
func wantOneSubmit(t *testing.T, log []store.AuditEntry, reviewer, item string) {
	t.Helper()
	if len(log) != 1 || log[0].Actor != reviewer || log[0].Action != ActLabelSubmit.String() ||
		log[0].Object != "submit "+item || log[0].Outcome != store.AuditOK {
		t.Errorf("%s's audit entries: %+v, want the one submit of %s, ok", reviewer, log, item)
	}
}

// TestResubmitOfTheStoredAnswerAuditsNothingNew: a reviewer's screen that
// submits again the answer it stored (the retry of a submit whose answer
// was lost) is told stored, and the audit log keeps the one entry that
// committed with the label, as a guide set to the text in force records
// nothing: no second "ok", no refusal. Another answer, refused as already
// submitted, records nothing either (nothing was done, and it is not a
// refusal of the role).
func TestResubmitOfTheStoredAnswerAuditsNothingNew(t *testing.T) {
	onEngines(t, func(t *testing.T, engine string) {
		ctx := context.Background()
		a, _, item := projectOn(t, engine) // bob is assigned, not yet submitted
		bob := a.As(actor(t, a, "bob"))
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-1")); err != nil {
			t.Fatal(err)
		}
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-1")); err != nil {
			t.Fatalf("bob's retry of his stored answer: %v", err)
		}
		if err := bob.SubmitLabel(ctx, label(item, "bob", "ORD-2")); !errors.Is(err, ErrConflict) {
			t.Fatalf("bob's other answer over his stored label: %v, want already submitted", err)
		}
		wantOneSubmit(t, submitEntries(t, a, "bob"), "bob", item)
	})
}

// TestRetryAfterAnUnansweredCommitAuditsOnce: on PostgreSQL, a submit over
// SSH whose COMMIT the server made but whose answer the connection lost
// fails as unavailable; the screen's retry is told stored; the audit log
// has the one entry that committed with the label, with alice's key, and
// no refusal.
func TestRetryAfterAnUnansweredCommitAuditsOnce(t *testing.T) {
	ctx := context.Background()
	direct, item := oneItemOn(t, "postgres")
	key := store.UserKey{Fingerprint: "SHA256:alice", Key: "ssh-ed25519 AAAA alice"}
	if err := direct.AddUserKey(ctx, "alice", key); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(direct.Path())
	if err != nil {
		t.Fatal(err)
	}
	var armed, fired *atomic.Bool
	u.Host, armed, fired = pgtest.FatalAtCommit(t, u.Host, false)
	proxied, err := store.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer proxied.Close()
	alice := New(proxied).As(Actor{Name: "alice", Role: RoleReviewer, Source: SourceSSH, KeyFingerprint: key.Fingerprint})
	armed.Store(true)
	err = alice.SubmitLabel(ctx, label(item, "alice", "ORD-1"))
	if !fired.Load() {
		t.Fatal("the proxy never saw the commit: the case is not tried")
	}
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("the submit whose commit went unanswered: %v, want unavailable", err)
	}
	if err := alice.SubmitLabel(ctx, label(item, "alice", "ORD-1")); err != nil {
		t.Fatalf("the screen's retry: %v, want stored", err)
	}
	log := submitEntries(t, New(direct), "alice")
	wantOneSubmit(t, log, "alice", item)
	if len(log) == 1 && (log[0].Source != string(SourceSSH) || log[0].KeyFingerprint != key.Fingerprint) {
		t.Errorf("the entry is not alice's over SSH with her key: %+v", log[0])
	}
}
