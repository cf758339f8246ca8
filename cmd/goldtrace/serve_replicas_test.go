package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/server"
)

// startReplicas serves one PostgreSQL project (seeded as startTeamServer
// seeds it) from n in-process servers, each with a store of its own, as n
// goldtrace serve processes would; they share the host key, as replicas
// behind one name must.
func startReplicas(t *testing.T, n, nTraces, nItems int, reviewers ...string) []*teamServer {
	t.Helper()
	// The timer checks keys once a minute: a removal must reach the
	// other replicas by its announcement.
	seed := &teamServer{t: t, dir: t.TempDir(), db: pgtest.DSN(t), limits: server.Limits{RevokeCheck: time.Minute}}
	seedTeam(t, seed, nTraces, nItems, reviewers)
	host := newKey(t)
	out := make([]*teamServer, n)
	for i := range out {
		r := *seed
		r.serve(host)
		out[i] = &r
	}
	return out
}

// pgCount runs a count query through a replica's store.
func pgCount(t *testing.T, ts *teamServer, query string, args ...any) int {
	t.Helper()
	var n int
	if err := ts.st.Reader().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// TestServeReplicasOnPostgres: two serve replicas on one PostgreSQL
// database. Two reviewers on two replicas submit the last labels of the
// same items at the same moment: each item settles exactly once (agreed
// gold or one dispute, never both, never neither). A submit acknowledged
// by one replica is in the other's status at once; a draft typed on one
// comes back on the other after the first connection dies; removing a key
// on one ends its session on the other within a second; every action is
// in the audit log with its key.
func TestServeReplicasOnPostgres(t *testing.T) {
	rs := startReplicas(t, 2, 20, 4, "alice", "bob")
	a, b := rs[0], rs[1]
	alice, bob := a.openScreen("alice"), b.openScreen("bob")
	alice.waitFor("Your label")
	bob.waitFor("Your label")
	const rounds = 3
	for i := range rounds {
		for _, p := range []*ptyClient{alice, bob} {
			p.send("\r")
			p.send("same answer")
		}
		alice.waitFor("same answer")
		bob.waitFor("same answer")
		// Both last labels of the item at once, on two replicas.
		go alice.send("\x13")
		bob.send("\x13")
		waitUntil(t, "both labels of round", func() bool {
			return pgCount(t, a, `SELECT count(*) FROM labels`) == 2*(i+1)
		})
	}
	if n := pgCount(t, a, `SELECT count(*) FROM (SELECT item_id FROM labels GROUP BY item_id HAVING count(*) = 2) x`); n != rounds {
		t.Fatalf("%d items have both labels, want %d (the queues diverged)", n, rounds)
	}
	// Settled exactly once: a gold row or a dispute, not both, not neither.
	if n := pgCount(t, b, `SELECT count(*) FROM (SELECT item_id FROM labels GROUP BY item_id HAVING count(*) = 2) x
		WHERE (SELECT count(*) FROM gold g WHERE g.item_id = x.item_id) + (SELECT count(*) FROM disputes d WHERE d.item_id = x.item_id) != 1`); n != 0 {
		t.Errorf("%d items with both labels are not settled exactly once", n)
	}
	if n := pgCount(t, b, `SELECT count(*) FROM gold WHERE status = 'agreed'`); n != rounds {
		t.Errorf("%d agreed gold rows, want %d (both reviewers gave the same answer)", n, rounds)
	}
	// What replica a acknowledged, replica b shows (no cache to go stale).
	out, errOut, code := b.run("alice", "", "status")
	if code != 0 || !regexp.MustCompile(`alice +1 +0 +3 `).MatchString(out) {
		t.Errorf("alice's status on the other replica: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = a.run("carol", "", "status")
	if code != 0 || !strings.Contains(out, "3 settled") || !strings.Contains(out, "3 agreed") {
		t.Errorf("carol's status: exit %d\n%s%s", code, out, errOut)
	}

	// The lead's dashboard on replica b has the gold agreed through both.
	lead := b.openScreen("carol")
	waitUntil(t, "the dashboard's 3 agreed items", func() bool {
		return strings.Contains(ansi.Strip(lead.screen()), "agreed 3 ·")
	})
	lead.send("q")

	// A draft typed on replica a is there on replica b once a's
	// connection is gone.
	alice.send("\r")
	alice.send("typed before the crash")
	alice.waitFor("the crash")
	waitUntil(t, "alice's draft", func() bool {
		return pgCount(t, a, `SELECT count(*) FROM drafts WHERE reviewer = 'alice' AND body LIKE '%typed before the crash%'`) == 1
	})
	alice.sess.Close()
	again := b.openScreen("alice")
	again.waitFor("typed before the crash")

	// Removing bob's key on replica a ends his session on replica b.
	removed := time.Now()
	out, errOut, code = a.run("carol", "", "users", "key", "remove", "bob", gossh.FingerprintSHA256(b.keys["bob"].PublicKey()))
	if code != 0 {
		t.Fatalf("users key remove: exit %d: %s%s", code, out, errOut)
	}
	select {
	case <-bob.done: // ended by the server: no exit status
	case <-time.After(5 * time.Second):
		t.Fatalf("bob's session on the other replica is still open 5 s after his key was removed")
	}
	took := time.Since(removed)
	t.Logf("bob's session on the other replica ended %s after the removal was sent", took.Round(time.Millisecond))
	if took > time.Second {
		t.Errorf("bob's session on the other replica ended %s after the removal, more than a second", took)
	}
	if !strings.Contains(bob.screen(), "was removed") {
		t.Errorf("bob's screen did not say why it ended:\n%s", tail(bob.screen(), 500))
	}

	// The audit log has every submit with the key it came with.
	if n := pgCount(t, a, `SELECT count(*) FROM audit WHERE action = 'label.submit' AND source = 'ssh' AND key_fingerprint != '' AND object LIKE 'submit %'`); n != 2*rounds {
		t.Errorf("%d submits audited with their key, want %d", n, 2*rounds)
	}
}
