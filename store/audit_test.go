package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/store/sqlite"
)

// TestMigrationRebuildsUsersKeepingReferences applies 0008 (the users table
// rebuild that adds the ci role) to a database that has users referenced by
// labels' assignments and by a table that cascades on delete, as the SSH key
// table does: nothing that references users may be lost or broken.
func TestMigrationRebuildsUsersKeepingReferences(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	// Every migration but 0008, applied last: a database that the
	// releases before this one brought past 0008 (0009 and later) gets it
	// then.
	w, err := sqlite.ApplyMigrations(ctx, path, migrationsFS(t), func(v int) bool { return v != 8 })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, q := range []string{
		`INSERT INTO users(name, role, created_at) VALUES ('alice', 'reviewer', 'x'), ('carol', 'lead', 'x')`,
		`CREATE TABLE keys_like (user TEXT NOT NULL REFERENCES users(name) ON DELETE CASCADE, fp TEXT NOT NULL) STRICT`,
		`INSERT INTO keys_like VALUES ('alice', 'SHA256:a'), ('carol', 'SHA256:c')`,
		`INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b1', 1, 2, 'x')`,
	} {
		if _, err := w.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rebuilt, err := sqlite.ApplyMigrations(ctx, path, migrationsFS(t), nil)
	if err != nil {
		t.Fatalf("0008: %v", err)
	}
	rebuilt.Close()
	var n int
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM keys_like`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("rows referencing users after the rebuild: %d %v", n, err)
	}
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("users after the rebuild: %d %v", n, err)
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('ci-bot', 'ci', 'x')`); err != nil {
		t.Errorf("ci role refused: %v", err)
	}
	if _, err := w.ExecContext(ctx, `INSERT INTO users(name, role, created_at) VALUES ('eve', 'admin', 'x')`); err == nil {
		t.Error("the role CHECK no longer holds")
	}
	// Foreign keys are on again, and still point at the rebuilt table.
	if _, err := w.ExecContext(ctx, `INSERT INTO keys_like VALUES ('nobody', 'SHA256:n')`); err == nil {
		t.Error("foreign keys are off after the migration")
	}
	if _, err := w.ExecContext(ctx, `DELETE FROM users WHERE name = 'alice'`); err != nil {
		t.Fatal(err)
	}
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM keys_like WHERE user = 'alice'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("cascade from the rebuilt users table: %d %v", n, err)
	}
	// Applying it again is a no-op (it is recorded).
	if again, err := sqlite.ApplyMigrations(ctx, path, migrationsFS(t), nil); err != nil {
		t.Errorf("second apply: %v", err)
	} else {
		again.Close()
	}
}

func TestAuditLog(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		for _, e := range []AuditEntry{
			{Actor: "carol", Role: RoleLead, Source: "local", Action: "export", Object: "support@v1"},
			{Actor: "alice", Role: RoleReviewer, Source: "ssh", KeyFingerprint: "SHA256:x", Action: "labels.read-all", Outcome: AuditDenied},
			{Actor: "carol", Role: RoleLead, Source: "local", Action: "settings.set", Object: "review_agreed=true"},
		} {
			if err := st.AppendAudit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		all, err := st.AuditLog(ctx, AuditFilter{})
		if err != nil || len(all) != 3 || all[0].Action != "export" || all[1].Outcome != AuditDenied || all[2].At == "" {
			t.Fatalf("log: %+v %v", all, err)
		}
		last, err := st.AuditLog(ctx, AuditFilter{Actor: "carol", Limit: 1})
		if err != nil || len(last) != 1 || last[0].Action != "settings.set" {
			t.Fatalf("carol's last: %+v %v", last, err)
		}
		if err := st.AppendAudit(ctx, AuditEntry{Actor: "x", Source: "telnet", Action: "a"}); err == nil {
			t.Error("an unknown source was recorded")
		}
		if err := st.AddUser(ctx, "ci-bot", RoleCI); err != nil {
			t.Errorf("add ci user: %v", err)
		}
		if err := st.AddUser(ctx, "eve", "admin"); err == nil || errors.Is(err, ErrConflict) {
			t.Errorf("bad role: %v", err)
		}
	})
}

// A write made with an SSH key is stored, with its audit entry, only while
// the key is still its user's: once it is removed (or was never theirs),
// the write fails with ErrRevoked and leaves no label and no entry.
func TestWriteWithRemovedKeyIsRefused(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		ids := reviewersBatch(t, st, 3, "alice", "bob", "carol")
		if err := st.AddUserKey(ctx, "alice", ka); err != nil {
			t.Fatal(err)
		}
		as := func(fingerprint, item string) context.Context {
			return WithAudit(ctx, AuditEntry{Actor: "alice", Role: RoleReviewer, Source: "ssh", KeyFingerprint: fingerprint,
				Action: "label.submit", Object: item})
		}
		if _, err := st.SubmitLabel(as(ka.Fingerprint, ids[0]), callLabel(ids[0], "alice", `{"order_id":"ORD-1"}`)); err != nil {
			t.Fatalf("submit with alice's key: %v", err)
		}
		if _, err := st.SubmitLabel(as(kb.Fingerprint, ids[1]), callLabel(ids[1], "alice", `{"order_id":"ORD-1"}`)); !errors.Is(err, ErrRevoked) {
			t.Fatalf("submit with a key that is not alice's: %v, want ErrRevoked", err)
		}
		if err := st.RemoveUserKey(ctx, "alice", ka.Fingerprint); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveDraft(as(ka.Fingerprint, ids[2]), ids[2], "alice", []byte(`{}`), 1); !errors.Is(err, ErrRevoked) {
			t.Fatalf("draft with alice's removed key: %v, want ErrRevoked", err)
		}
		var labels, entries int
		if err := st.Reader().QueryRowContext(ctx, `SELECT (SELECT count(*) FROM labels WHERE reviewer = 'alice'),
			(SELECT count(*) FROM audit WHERE actor = 'alice')`).Scan(&labels, &entries); err != nil {
			t.Fatal(err)
		}
		if labels != 1 || entries != 1 {
			t.Errorf("%d labels and %d audit entries of alice, want 1 and 1", labels, entries)
		}
	})
}
