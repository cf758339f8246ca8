package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/goldtrace/goldtrace/internal/bulk"
	"github.com/goldtrace/goldtrace/internal/dberr"
)

// DB is one PostgreSQL database. Reads and writes share one pool; every
// write transaction first takes the advisory lock writeLock, so writers
// (of every goldtrace process on the database) run one at a time, as on
// SQLite, and readers never wait for them. A write its caller scoped to
// a key (Scoped) takes that lock shared and the key's own lock
// exclusively instead: it runs beside scoped writes to other keys and
// never beside an unscoped one.
type DB struct {
	db       *sql.DB
	name     string // the DSN without its password: what messages say
	host     string
	port     uint16
	database string
	readOnly bool
	// deferred: opened with Options.DeferSchema on a database without a
	// schema, which SchemaIn makes.
	deferred bool
	opt      Options
	// conn is how a connection of the pool is made, for Listen's own.
	conn *pgx.ConnConfig

	// Now is the clock; tests replace it.
	Now func() time.Time
}

// Options say how Open treats the database.
type Options struct {
	// ReadOnly refuses every write with dberr.ErrReadOnly (and runs every
	// session read-only).
	ReadOnly bool
	// NoSchema skips the schema check and the migrations.
	NoSchema bool
	// DeferSchema leaves a database without goldtrace's schema as it is:
	// the schema is made by SchemaIn, inside the write transaction that
	// fills it (goldtrace copy). A database with a schema is migrated as
	// usual.
	DeferSchema bool
	// Password, when set, is the password (the CLI takes it out of the
	// DSN so that no message can show it); otherwise pgx reads it as libpq
	// does (PGPASSWORD, PGPASSFILE, ~/.pgpass).
	Password string
	// Migrations holds the schema's PostgreSQL migrations, NNNN_what.sql.
	Migrations fs.FS
	// Upgrading, when set, is told before a migration with a notice
	// (migrations.Migration.Notice) upgrades an existing database, with
	// a line that names both.
	Upgrading func(line string)
	// Committed, when set, is called after every write transaction under
	// ctx ends.
	Committed func(ctx context.Context)
	// Versioned: the schema has goldtrace's store_state table, and every
	// write transaction moves the data version kept there (DataVersion);
	// without it there is no data version and nothing may be cached.
	Versioned bool
	// Unchanged, when set, says that a write transaction under ctx leaves
	// what is cached by DataVersion as it is (an audit entry alone), so it
	// does not move the data version.
	Unchanged func(ctx context.Context) bool
	// BusyTimeout is how long a write waits for the writers' lock that
	// another session holds before failing with dberr.ErrBusy (0: 15 s),
	// as a SQLite write waits for the file's lock.
	BusyTimeout time.Duration
}

// PoolConns is the size of the pool.
const PoolConns = 16

// writeLock is the advisory lock key writers take ("goldtrace" in ASCII).
const writeLock = 0x676f6c6474726163

// WritersLock is the advisory lock every write transaction takes first
// (exclusively, or shared for a write scoped to a key): a session that
// takes it shared waits exactly as long as a reviewer's write would.
const WritersLock int64 = writeLock

// minServer is the oldest PostgreSQL this engine supports (server_version_num).
const minServer = 130000

// IsDSN reports whether s names a PostgreSQL database rather than a file.
func IsDSN(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the DSN without its password, and the password.
func Redact(dsn string) (clean, password string) {
	u, err := url.Parse(dsn)
	if err != nil || u.User == nil {
		return dsn, ""
	}
	pw, ok := u.User.Password()
	if !ok {
		return dsn, ""
	}
	u.User = url.User(u.User.Username())
	return u.String(), pw
}

// Open connects to the database the DSN names and brings its schema up to
// date (migrations run under an advisory lock, so replicas opening at once
// apply each one once).
func Open(ctx context.Context, dsn string, opt Options) (*DB, error) {
	clean, inline := Redact(dsn)
	d := &DB{name: clean, readOnly: opt.ReadOnly, opt: opt, Now: func() time.Time { return time.Now().UTC() }}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		// pgx's message quotes the DSN, password and all.
		return nil, &dberr.DBError{Path: clean, Op: "open", Kind: dberr.ErrUnavailable, Err: errors.New("bad DSN"),
			Why: "it is not a valid postgres:// DSN"}
	}
	if opt.Password != "" && inline == "" {
		cfg.Password = opt.Password
	}
	d.host, d.port, d.database = cfg.Host, cfg.Port, cfg.Database
	if opt.ReadOnly {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	cfg.RuntimeParams["application_name"] = "goldtrace"
	d.conn = cfg.Copy()
	d.db = sql.OpenDB(connector{inner: stdlib.GetConnector(*cfg), d: d})
	d.db.SetMaxOpenConns(PoolConns)
	d.db.SetMaxIdleConns(PoolConns)
	d.db.SetConnMaxIdleTime(5 * time.Minute)
	var version int
	if err := d.db.QueryRowContext(ctx, `SELECT current_setting('server_version_num')::int`).Scan(&version); err != nil {
		d.db.Close()
		return nil, d.wrap("open", err)
	}
	if version < minServer {
		d.db.Close()
		return nil, &dberr.DBError{Path: d.name, Op: "open", Kind: dberr.ErrUnavailable, Err: errors.New("server too old"),
			Why: fmt.Sprintf("server version %d.%d is not supported (PostgreSQL 13 or newer)", version/10000, version%10000)}
	}
	if opt.NoSchema {
		return d, nil
	}
	if opt.DeferSchema && !opt.ReadOnly {
		has, err := d.HasSchema(ctx)
		if err != nil {
			d.db.Close()
			return nil, err
		}
		if !has {
			d.deferred = true
			return d, nil
		}
	}
	if err := d.migrate(ctx); err != nil {
		d.db.Close()
		return nil, err
	}
	return d, nil
}

// Path is the DSN without its password.
func (d *DB) Path() string { return d.name }

// ReadOnly reports whether every write is refused.
func (d *DB) ReadOnly() bool { return d.readOnly }

// Close closes the pool.
func (d *DB) Close() error { return d.db.Close() }

// Reader is the pool, for queries that do not write.
func (d *DB) Reader() *sql.DB { return d.db }

// Tx is a write transaction handed to WithTx's function.
type Tx = sql.Tx

// WithTx runs fn in one write transaction that holds the writers' lock,
// committing when fn returns nil and rolling back otherwise. A transaction
// PostgreSQL aborts for a serialization failure or a deadlock before fn
// ran is begun again; after, it fails with dberr.ErrBusy (nothing saved).
func (d *DB) WithTx(ctx context.Context, fn func(tx *Tx) error) error {
	if d.readOnly {
		return &dberr.DBError{Path: d.name, Op: "write", Kind: dberr.ErrReadOnly, Err: errors.New("opened read-only"), Why: "opened read-only"}
	}
	defer d.committed(ctx)
	var tx *sql.Tx
	var err error
	for attempt := 0; ; attempt++ {
		tx, err = d.db.BeginTx(ctx, nil)
		if err == nil {
			// One round trip: the busy timeout, the writers' lock and
			// the data version's move (see begin).
			_, err = tx.ExecContext(ctx, d.begin(ctx, d.bumps(ctx) && !HasKeys(ctx)))
			if err != nil {
				_ = tx.Rollback()
			}
		}
		if err == nil || attempt == 2 || !retryable(err) {
			break
		}
	}
	if err != nil {
		return d.wrap("begin", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := fn(tx); err != nil {
		return d.wrap("", err)
	}
	if HasKeys(ctx) && d.bumps(ctx) {
		// Last, after every key's lock: a transaction scoped to one key
		// takes its key's lock before its data version row, and one
		// that holds that row while waiting for a key's lock could wait
		// for it while it waits for the row.
		if _, err := tx.ExecContext(ctx, bumpVersion); err != nil {
			return d.wrap("", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return d.wrap("commit", err)
	}
	return nil
}

// WithRelaxedTx is WithTx committed without waiting for the server to
// flush its write-ahead log (synchronous_commit off, for this transaction
// only), as SQLite's engine commits a bulk write's chunks relaxed: a crash
// of the server can lose the last such commits, never leave one half
// written, and every bulk write records its progress in the chunk it
// belongs to (and ends with a synchronous commit, which flushes the log
// up to it, those of the relaxed commits before it included).
func (d *DB) WithRelaxedTx(ctx context.Context, fn func(tx *Tx) error) error {
	return d.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		return fn(tx)
	})
}

// ExecAlone runs one statement in a write transaction of its own.
func (d *DB) ExecAlone(ctx context.Context, query string, args ...any) error {
	return d.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
}

// begin is what a write transaction runs first, as one simple-protocol
// message (one round trip, statements run in order): lock_timeout set to
// the busy timeout, so that a writer holding a lock for ever (a stopped
// process, a session left in a transaction) fails the others with ErrBusy
// (55P03) after it rather than never; the writers' lock (shared, and then
// the scope's key lock, for a write ctx scopes); and, when bump, the data
// version moved. Every transaction takes its locks in that order (the
// writers' lock, a key's, its data version row), so none waits for a
// lock while holding one a transaction it waits for still needs.
func (d *DB) begin(ctx context.Context, bump bool) string {
	t := d.opt.BusyTimeout
	if t <= 0 {
		t = defaultBusy
	}
	q := fmt.Sprintf("SELECT set_config('lock_timeout', '%dms', true); ", t.Milliseconds())
	if sc, ok := ctx.Value(scopeKey{}).(scope); ok {
		q += fmt.Sprintf("SELECT pg_advisory_xact_lock_shared(%d)", int64(writeLock))
		if sc.key != "" {
			q += fmt.Sprintf("; SELECT pg_advisory_xact_lock(%d, %d)", scopeLocks, sc.lock())
		}
	} else {
		q += fmt.Sprintf("SELECT pg_advisory_xact_lock(%d)", int64(writeLock))
	}
	if bump {
		q += "; " + bumpVersion
	}
	return q
}

// defaultBusy is the busy timeout when Options.BusyTimeout is 0.
const defaultBusy = 15 * time.Second

// bumps reports whether a write transaction under ctx moves the data
// version.
func (d *DB) bumps(ctx context.Context) bool {
	return d.opt.Versioned && !d.deferred && (d.opt.Unchanged == nil || !d.opt.Unchanged(ctx))
}

func (d *DB) committed(ctx context.Context) {
	if d.opt.Committed != nil {
		d.opt.Committed(ctx)
	}
}

// Paced runs a bulk write in transactions of at most pace.ChunkTime's work
// until step says nothing is left, leaving the writers' lock free between
// them for whoever waits for it.
func (d *DB) Paced(ctx context.Context, pace bulk.Pace, step func(tx *Tx, deadline time.Time) (more bool, err error)) error {
	var last time.Time
	for more := true; more; {
		if err := d.PauseForWaiters(ctx, last, pace.Yield); err != nil {
			return err
		}
		var began time.Time
		var work time.Duration
		fn := func(tx *Tx) error {
			var err error
			began = time.Now()
			more, err = step(tx, began.Add(pace.ChunkTime))
			work = time.Since(began)
			if err == nil && !more && !pace.Full {
				// The last chunk commits synchronously: durable, and
				// with it every relaxed chunk before it.
				_, err = tx.ExecContext(ctx, `SET LOCAL synchronous_commit = on`)
			}
			return err
		}
		var err error
		if pace.Full {
			err = d.WithTx(bulk.Write(ctx), fn)
		} else {
			err = d.WithRelaxedTx(bulk.Write(ctx), fn)
		}
		if err != nil {
			return err
		}
		last = time.Now()
		if pace.Held != nil {
			pace.Held(work, last.Sub(began))
		}
	}
	return nil
}

// PauseForWaiters waits, after a bulk write's transaction committed at
// last, while other sessions wait for the writers' lock (at most yield), so
// a reviewer's submit gets in between two chunks.
func (d *DB) PauseForWaiters(ctx context.Context, last time.Time, yield time.Duration) error {
	if last.IsZero() {
		return ctx.Err()
	}
	until := last.Add(yield)
	for time.Now().Before(until) {
		if !d.waiting(ctx) {
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return ctx.Err()
}

// WritersWaiting reports whether another session waits for the writers'
// lock (a reviewer's submit behind a bulk write's transaction); true when
// it cannot tell. A bulk writer asks it while it holds the lock, to go on
// with its transaction only while no one waits.
func (d *DB) WritersWaiting(ctx context.Context) bool {
	var waiting int
	err := d.db.QueryRowContext(ctx, waitingQuery, int64(writeLock)).Scan(&waiting)
	return err != nil || waiting > 0
}

// waiting is WritersWaiting for PauseForWaiters, which stops pausing when
// it cannot tell.
func (d *DB) waiting(ctx context.Context) bool {
	var waiting int
	err := d.db.QueryRowContext(ctx, waitingQuery, int64(writeLock)).Scan(&waiting)
	return err == nil && waiting > 0
}

// waitingQuery counts the sessions waiting for the advisory lock $1 (the
// writers' lock, exclusive or shared) in this database.
const waitingQuery = `SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
	AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
	AND objsubid = 1 AND (classid::bigint << 32 | objid::bigint) = ?`

// BulkTuning changes nothing on PostgreSQL: the page cache is the
// server's.
func (d *DB) BulkTuning(context.Context, int) (restore func()) { return func() {} }

// Analyze gathers the planner's statistics of those of tables that have
// none (never analyzed: a database just copied or filled, before
// autovacuum came by). Without them PostgreSQL plans a bulk write's lists
// of keys as scans of the whole table (a 50k-label import's statements
// took 50–190 ms each instead of a few). It runs outside the writers'
// lock; if it fails, the statements are planned as before.
func (d *DB) Analyze(ctx context.Context, tables ...string) {
	if d.readOnly || len(tables) == 0 {
		return
	}
	never, err := d.strings(ctx, `SELECT c.relname FROM pg_class c WHERE c.relname = ANY($1) AND c.relkind IN ('r', 'p')
		AND pg_table_is_visible(c.oid) AND c.reltuples < 0`, tables)
	if err != nil {
		return
	}
	for _, t := range never {
		if _, err := d.db.ExecContext(ctx, `ANALYZE `+pgx.Identifier{t}.Sanitize()); err != nil {
			return
		}
	}
}

// LogSize is 0: PostgreSQL manages its write-ahead log itself.
func (d *DB) LogSize() int64 { return 0 }

// Checkpoint does nothing: PostgreSQL checkpoints on its own schedule.
func (d *DB) Checkpoint(context.Context) {}

// KeepLogSmall returns: PostgreSQL bounds its write-ahead log itself
// (max_wal_size).
func (d *DB) KeepLogSmall(context.Context, time.Duration, int64) {}

// CheckPassed records nothing: writes do no quick check on PostgreSQL.
func (d *DB) CheckPassed(context.Context) {}

// Backup is pg_dump's job.
func (d *DB) Backup(_ context.Context, dest string) error {
	return fmt.Errorf("backup of %s to %s: a PostgreSQL project is backed up with pg_dump (or the server's own backups)", d.name, dest)
}

// The data version: every write transaction (but those Options.Unchanged
// names) moves a counter in store_state, in the transaction itself, so the
// version a reader sees changes exactly when a commit of any process on
// the database (every serve replica) becomes visible. A status cached
// under the version read before it was computed is never served after a
// commit it does not hold: the bound on staleness is zero.
//
// The counter is kept in versionShards rows, each transaction moving the
// one its session's backend picks, and the version is their sum (with
// the single row of databases written before there were shards): a row
// moved holds its lock to the commit, and one row for all would order
// every write again, scoped or not. The sum only grows, and one statement
// reads it from one snapshot.
const versionShards = 64

var bumpVersion = fmt.Sprintf(`INSERT INTO store_state(key, value) VALUES ('data_version_' || (pg_backend_pid() %% %d), '1')
		ON CONFLICT (key) DO UPDATE SET value = (store_state.value::bigint + 1)::text`, versionShards)

const (
	readVersion = `SELECT coalesce(sum(value::bigint), 0) FROM store_state WHERE key = 'data_version' OR key LIKE 'data\_version\_%'`
)

// WriterOpen is true when there is a data version (Options.Versioned).
func (d *DB) WriterOpen() bool { return d.opt.Versioned }

// DataVersion is the data version (0 before the first write); conn is d,
// the same for every read. ok is false when it cannot be read in wait.
func (d *DB) DataVersion(ctx context.Context, wait time.Duration) (conn any, version int64, ok bool) {
	if !d.opt.Versioned {
		return nil, 0, false
	}
	ctx, cancel := context.WithTimeout(ctx, max(wait, 250*time.Millisecond))
	defer cancel()
	err := d.db.QueryRowContext(ctx, readVersion).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return d, 0, true
	}
	return d, version, err == nil
}

// now formats the clock for TEXT timestamp columns.
func (d *DB) now() string { return d.Now().UTC().Format(time.RFC3339Nano) }
