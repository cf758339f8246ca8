package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"

	"github.com/goldtrace/goldtrace/internal/dbschema"
	"github.com/goldtrace/goldtrace/internal/migrations"
)

// migration is one numbered file of the schema's PostgreSQL migrations.
type migration = migrations.Migration

// loadMigrations reads NNNN_what.sql files of fsys in order of number.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	if fsys == nil {
		return nil, errors.New("no migrations")
	}
	return migrations.Load(fsys)
}

// migrateLock is the advisory lock key migrations run under.
const migrateLock = writeLock + 1

// migrate applies, in one transaction holding migrateLock, the migrations
// schema_migrations does not record. A database with a migration this
// goldtrace does not know (a newer goldtrace's) is refused, naming both.
// When nothing is missing it only reads. A read-only store refuses a
// database that needs migrations.
func (d *DB) migrate(ctx context.Context) error {
	ms, err := loadMigrations(d.opt.Migrations)
	if err != nil {
		return err
	}
	recorded, err := d.recorded(ctx, d.db)
	if err != nil {
		return err
	}
	pending, err := d.pending(ms, recorded)
	if err != nil || len(pending) == 0 {
		return err
	}
	if d.readOnly {
		return fmt.Errorf("database %s needs a schema upgrade (%s) but it was opened read-only: upgrade it first by running any goldtrace command on it (goldtrace --db DSN status)", d.name, pending[0].Name)
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return d.wrap("migrate", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := d.apply(ctx, tx, ms); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return d.wrap("migrate", err)
	}
	return nil
}

// apply applies, in tx, the migrations of ms that schema_migrations does
// not record, holding migrateLock to the end of tx (another process
// opening the database meanwhile waits for tx, then finds them applied).
func (d *DB) apply(ctx context.Context, tx *sql.Tx, ms []migration) error {
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(?)`, int64(migrateLock)); err != nil {
		return d.wrap("migrate", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return d.wrap("create schema", err)
	}
	// Another process may have applied them while this one waited.
	recorded, err := d.recorded(ctx, tx)
	if err != nil {
		return err
	}
	pending, err := d.pending(ms, recorded)
	if err != nil {
		return err
	}
	for _, m := range pending {
		// A new database's schema is made, not upgraded: no notice.
		if m.Notice != "" && len(recorded) > 0 && d.opt.Upgrading != nil {
			d.opt.Upgrading(fmt.Sprintf("upgrading %s (%s): %s", d.name, m.Name, m.Notice))
		}
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fmt.Errorf("migrate %s: %s: %w", d.name, m.Name, d.wrap("", err))
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
			m.Version, m.Name, d.now()); err != nil {
			return d.wrap("migrate", err)
		}
	}
	return nil
}

// SchemaIn describes the project's tables as the write transaction tx
// sees them, first making the schema in tx when the database was opened
// with Options.DeferSchema and had none: the schema then exists exactly
// when tx commits (PostgreSQL's DDL is transactional), so a copy that
// fails leaves the database as empty as it found it.
func (d *DB) SchemaIn(ctx context.Context, tx *sql.Tx) ([]dbschema.Table, error) {
	if d.deferred {
		ms, err := loadMigrations(d.opt.Migrations)
		if err != nil {
			return nil, err
		}
		if err := d.apply(ctx, tx, ms); err != nil {
			return nil, err
		}
		if d.opt.Versioned {
			// The data version this transaction's begin could not move.
			if _, err := tx.ExecContext(ctx, bumpVersion); err != nil {
				return nil, d.wrap("migrate", err)
			}
		}
	}
	return d.tables(ctx, tx)
}

type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// recorded is each applied migration's name by number (none when the
// table does not exist yet).
func (d *DB) recorded(ctx context.Context, q queryer) (map[int]string, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists); err != nil {
		return nil, d.wrap("read schema", err)
	}
	if !exists {
		return map[int]string{}, nil
	}
	out, err := migrations.Recorded(ctx, q)
	return out, d.wrap("read schema", err)
}

// pending is the migrations of ms not in recorded (migrations.Pending).
func (d *DB) pending(ms []migration, recorded map[int]string) ([]migration, error) {
	return migrations.Pending(ms, recorded, d.name)
}

// HasSchema reports whether the database holds a goldtrace project
// (init refuses to make one over it).
func (d *DB) HasSchema(ctx context.Context) (bool, error) {
	var exists bool
	err := d.db.QueryRowContext(ctx, `SELECT to_regclass('schema_migrations') IS NOT NULL`).Scan(&exists)
	return exists, d.wrap("read schema", err)
}
