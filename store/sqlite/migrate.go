package sqlite

// The migrations runner: numbered NNNN_what.sql files, forward-only, each
// applied in its own transaction and recorded in schema_migrations.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/internal/migrations"
)

// migration is one numbered file of the schema's migrations.
type migration = migrations.Migration

// loadMigrations reads the migrations at the root of fsys, in order.
func loadMigrations(fsys fs.FS) ([]migration, error) { return migrations.Load(fsys) }

// pendingMigrations reads (no lock) which embedded migrations the file
// lacks. A file written by a newer goldtrace (versions this one does not
// know) is refused.
func (d *DB) pendingMigrations(ctx context.Context) ([]migration, error) {
	ms, err := loadMigrations(d.opt.Migrations)
	if err != nil {
		return nil, err
	}
	var tables int
	if err := d.r.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return nil, d.wrap("read schema", err)
	}
	// recorded is each applied migration's name, by number.
	recorded := map[int]string{}
	if tables > 0 {
		if recorded, err = migrations.Recorded(ctx, d.r); err != nil {
			return nil, d.wrap("read schema", err)
		}
	}
	return migrations.Pending(ms, recorded, d.path)
}

// migrate applies, each in its own transaction, the embedded migrations not
// yet recorded in schema_migrations. When none is missing it only reads.
func (d *DB) migrate(ctx context.Context, w *sql.DB) error {
	var tables int
	if err := w.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'`).Scan(&tables); err != nil {
		return d.wrap("read schema", err)
	}
	if tables == 0 {
		if _, err := w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`); err != nil {
			return d.wrap("create schema", err)
		}
	}
	ms, err := loadMigrations(d.opt.Migrations)
	if err != nil {
		return err
	}
	applied := map[int]bool{}
	rows, err := w.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return d.wrap("read schema", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return d.wrap("read schema", err)
		}
		applied[v] = true
	}
	rows.Close()
	for _, m := range ms {
		if applied[m.Version] {
			continue
		}
		// A new file's schema is made, not upgraded: no notice.
		if m.Notice != "" && tables > 0 && d.opt.Upgrading != nil {
			d.opt.Upgrading(fmt.Sprintf("upgrading %s (%s): %s", d.path, m.Name, m.Notice))
		}
		if err := d.applyMigration(ctx, w, m); err != nil {
			return err
		}
	}
	return nil
}

// foreignKeysOff, on a migration's first line, makes it run with foreign
// keys off (a table rebuild: dropping a table others reference must neither
// fail nor cascade) and checked with foreign_key_check before the commit.
const foreignKeysOff = "-- migrate: foreign_keys=off"

// applyMigration applies m in one transaction on the write pool w unless it
// is recorded already.
func (d *DB) applyMigration(ctx context.Context, w *sql.DB, m migration) (err error) {
	fkOff := strings.HasPrefix(m.SQL, foreignKeysOff)
	if fkOff {
		// PRAGMA foreign_keys is a no-op inside a transaction, so it is set
		// on the write pool's one connection before the transaction begins
		// (and checked inside it).
		if _, err := w.ExecContext(ctx, `PRAGMA foreign_keys = OFF`); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		// Turned on again even when ctx has ended meanwhile: the
		// connection stays in the pool for every later write.
		// A pool that cannot have them on again is not used: the error
		// fails the writer's opening, which closes it.
		defer func() {
			if _, onErr := w.ExecContext(context.WithoutCancel(ctx), `PRAGMA foreign_keys = ON`); onErr != nil && err == nil {
				err = fmt.Errorf("%s: foreign keys could not be turned on again: %w", m.Name, onErr)
			}
		}()
	}
	return d.withTxOn(ctx, w, func(tx *Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if fkOff {
			var on int
			if err := tx.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&on); err != nil || on != 0 {
				return fmt.Errorf("%s: foreign keys could not be turned off for a table rebuild", m.Name)
			}
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		if fkOff {
			var table string
			err := tx.QueryRowContext(ctx, `SELECT "table" FROM pragma_foreign_key_check LIMIT 1`).Scan(&table)
			if err == nil {
				return fmt.Errorf("%s: the rebuild left a broken reference in table %s", m.Name, table)
			} else if !errors.Is(err, sql.ErrNoRows) {
				return fmt.Errorf("%s: %w", m.Name, err)
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, d.now())
		return err
	})
}

// ApplyMigrations opens a write pool on the file at path and applies, in
// order, each migration of fsys not yet recorded for which keep (nil: all)
// says yes, without the checks Open makes: tests and tools build an older
// schema with it. The caller closes the pool.
func ApplyMigrations(ctx context.Context, path string, fsys fs.FS, keep func(version int) bool) (*sql.DB, error) {
	d := &DB{path: path, busy: busyTimeout, opt: Options{Migrations: fsys}, Now: func() time.Time { return time.Now().UTC() }}
	w, err := sql.Open("sqlite", dsn(path, true, d.busy))
	if err != nil {
		return nil, err
	}
	w.SetMaxOpenConns(1)
	ms, err := loadMigrations(fsys)
	if err == nil {
		_, err = w.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT`)
	}
	for _, m := range ms {
		if err != nil {
			break
		}
		if keep == nil || keep(m.Version) {
			err = d.applyMigration(ctx, w, m)
		}
	}
	if err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}
