package main

import (
	"context"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/store"
)

// A lead releases a reviewer's skipped item to another reviewer through
// the CLI; a reviewer may not; bad usage exits 2.
func TestAssignRelease(t *testing.T) {
	db, items := lblProject(t, 2)
	st, err := store.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddUser(context.Background(), "dave", store.RoleReviewer); err != nil {
		t.Fatal(err)
	}
	if err := st.SkipItem(context.Background(), items[0], "bob", "not my domain"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, _, err := lblRunErr(t, db, "assign", "--release", "--as", "alice", "--from", "bob", "--to", "dave"); err == nil || exitCode(err) != 2 ||
		!strings.Contains(err.Error(), "only a lead may") {
		t.Fatalf("a reviewer released: %v", err)
	}
	if _, _, err := lblRunErr(t, db, "assign", "--as", "carol"); err == nil || exitCode(err) != 2 {
		t.Fatalf("no --release: %v", err)
	}
	out, _, err := lblRunErr(t, db, "assign", "--release", "--as", "carol", "--from", "bob", "--to", "dave")
	if err != nil || !strings.Contains(out, items[0]+": bob → dave in b1, was skipped (skipped: not my domain)") || !strings.Contains(out, "released 1 item(s)") {
		t.Fatalf("release: %v\n%s", err, out)
	}
	out, _, err = lblRunErr(t, db, "status", "--as", "dave", "--json")
	if err != nil || !strings.Contains(out, `"dave"`) {
		t.Errorf("dave's status: %v\n%s", err, out)
	}
}
