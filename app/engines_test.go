package app

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/goldtrace/goldtrace/internal/pgtest"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// onEngines runs test on a SQLite project and on a PostgreSQL one (which
// skips, saying why, when GOLDTRACE_TEST_PG is unset), as subtests named
// after the engine.
func onEngines(t *testing.T, test func(t *testing.T, engine string)) {
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) { test(t, engine) })
	}
}

// projectOn is project on engine: one item, the four users, alice's label.
func projectOn(t *testing.T, engine string) (*App, *store.Store, string) {
	t.Helper()
	st, item := oneItemOn(t, engine)
	if _, err := st.SubmitLabel(context.Background(), label(item, "alice", "ORD-1")); err != nil {
		t.Fatal(err)
	}
	return New(st), st, item
}

// oneItemOn is storetest.OneItem on engine: nothing labeled yet.
func oneItemOn(t *testing.T, engine string) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "gt.db")
	if engine == "postgres" {
		path = pgtest.Clone(t, "app", func(dsn string) error {
			st, err := store.Open(context.Background(), dsn)
			if err != nil {
				return err
			}
			return st.Close()
		})
	}
	return storetest.OneItem(t, path)
}

// failAudit makes every insert into the audit log fail (a trigger named
// name), on engine's terms.
func failAudit(t *testing.T, st *store.Store, engine, name string) {
	t.Helper()
	stmts := []string{`CREATE TRIGGER ` + name + ` BEFORE INSERT ON audit BEGIN SELECT RAISE(ABORT, 'audit refused'); END`}
	if engine == "postgres" {
		stmts = []string{
			`CREATE FUNCTION ` + name + `() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit refused'; END $$`,
			`CREATE TRIGGER ` + name + ` BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION ` + name + `()`,
		}
	}
	execAll(t, st, stmts)
}

// allowAudit drops failAudit's trigger.
func allowAudit(t *testing.T, st *store.Store, engine, name string) {
	t.Helper()
	stmt := `DROP TRIGGER ` + name
	if engine == "postgres" {
		stmt += ` ON audit`
	}
	execAll(t, st, []string{stmt})
}

func execAll(t *testing.T, st *store.Store, stmts []string) {
	t.Helper()
	ctx := context.Background()
	if err := st.WithTx(ctx, func(tx *store.Tx) error {
		for _, s := range stmts {
			if _, err := tx.ExecContext(ctx, s); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}
