package app

import (
	"path/filepath"
	"strings"
	"testing"
)

// Recovery drafts of a PostgreSQL project go to a local file named after
// its host and database, never to a path made of the DSN (nor its password).
func TestRecoveryBase(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if got := RecoveryBase("/p/gt.db"); got != "/p/gt.db" {
		t.Errorf("SQLite: %q", got)
	}
	got := RecoveryBase("postgres://gold:secret@db.example:5433/support?sslmode=require")
	if filepath.Dir(got) == "." || strings.Contains(got, "secret") || strings.Contains(got, "postgres:") ||
		filepath.Base(got) != "db.example_5433_support" {
		t.Errorf("PostgreSQL: %q", got)
	}
}
