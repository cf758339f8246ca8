package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/goldtrace/goldtrace/internal/dberr"
)

// Stmt is one statement of a round of a piped transaction: its query, in
// the store's dialect (translated as every statement is), and its
// arguments. Rows, when set, reads each row the statement returns;
// Affected, when set, receives how many rows it changed. Assert, when
// set, makes the statement an assertion: a query that divides by zero
// when what it asserts is false, whose failure ends the round (and the
// transaction, before any statement after it runs) with Assert as the
// round's error.
type Stmt struct {
	Query    string
	Args     []any
	Rows     func(r Row) error
	Affected *int64
	Assert   error
}

// Row is one row of a statement's result.
type Row interface{ Scan(dest ...any) error }

// Piped is a write transaction whose statements go to the server in
// rounds, each round's statements pipelined in one round trip whatever
// their number: what WithTx does in a round trip per statement (and one
// each to begin and commit). Its first round begins the transaction with
// what WithTx's begin does (the busy timeout, the writers' and the
// scope's locks, the data version's move), its last commits it.
type Piped struct {
	ctx    context.Context
	d      *DB
	conn   *pgx.Conn
	begun  bool // a round began the transaction
	ended  bool // a round committed it
	rounds int
}

// WithPiped runs fn in one write transaction sent in rounds (Piped),
// committing when fn returns nil (in fn's last round, Piped.Commit, or in
// a round of its own) and rolling back otherwise. When the first round
// fails for a serialization failure or a deadlock, fn runs again from the
// start (nothing of it was kept), as WithTx begins again.
func (d *DB) WithPiped(ctx context.Context, fn func(p *Piped) error) error {
	if d.readOnly {
		return &dberr.DBError{Path: d.name, Op: "write", Kind: dberr.ErrReadOnly, Err: errors.New("opened read-only"), Why: "opened read-only"}
	}
	defer d.committed(ctx)
	c, err := d.db.Conn(ctx)
	if err != nil {
		return d.wrap("begin", err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		conn := dc.(*rebindConn).Conn.Conn()
		for attempt := 0; ; attempt++ {
			p := &Piped{ctx: ctx, d: d, conn: conn}
			err := p.run(fn)
			if err == nil || attempt == 2 || p.rounds > 1 || !retryable(err) {
				return err
			}
		}
	})
	return d.wrap("", err)
}

// run runs fn, then commits or rolls back.
func (p *Piped) run(fn func(p *Piped) error) error {
	err := fn(p)
	if err == nil && !p.ended {
		err = p.Commit()
	}
	if err != nil && p.begun && p.conn.PgConn().TxStatus() != 'I' && !p.conn.IsClosed() {
		// Rolled back even when ctx is done: the connection goes back to
		// the pool.
		if _, rerr := p.conn.Exec(context.WithoutCancel(p.ctx), "rollback"); rerr != nil {
			p.conn.PgConn().Close(context.WithoutCancel(p.ctx))
		}
	}
	if err != nil && p.conn.IsClosed() {
		// database/sql discards a closed connection (ResetSession).
		return brokenConn{err}
	}
	return err
}

// brokenConn is the failure of a round on a connection that is closed:
// database/sql sees driver.ErrBadConn (and discards the connection), a
// person the failure's own one line.
type brokenConn struct{ error }

func (b brokenConn) Unwrap() []error { return []error{b.error, driver.ErrBadConn} }

// Round sends stmts in one round trip (the first round beginning the
// transaction before them) and reads their results: the first error ends
// the round, and the transaction then rolls back.
func (p *Piped) Round(stmts ...Stmt) error { return p.send(false, stmts) }

// Commit sends stmts and commits the transaction, in one round trip.
func (p *Piped) Commit(stmts ...Stmt) error { return p.send(true, stmts) }

func (p *Piped) send(commit bool, stmts []Stmt) error {
	if p.ended {
		return errors.New("piped transaction: a round after the commit")
	}
	var b pgx.Batch
	head := 0
	if !p.begun {
		b.Queue("begin")
		for _, s := range p.d.beginStmts(p.ctx) {
			b.Queue(s.Query, s.Args...)
		}
		head = b.Len()
		p.begun = true
	}
	for _, s := range stmts {
		b.Queue(translate(s.Query), s.Args...)
	}
	if commit {
		b.Queue("commit")
	}
	p.rounds++
	br := p.conn.SendBatch(p.ctx, &b)
	err := results(br, head, stmts, commit)
	if cerr := br.Close(); err == nil && cerr != nil && commit {
		// The server answered the commit: the transaction is stored,
		// whatever ends the round after it (a server shutting down sends
		// its FATAL before the round's end, and a reviewer who was told
		// "not submitted" would submit again into "already submitted").
		// The connection is done for.
		p.conn.PgConn().Close(context.WithoutCancel(p.ctx))
	} else if err == nil {
		err = cerr
	}
	if err != nil {
		return p.d.explained(err)
	}
	if commit {
		p.ended = true
	}
	return nil
}

// results reads a round's results: head statements of the begin, stmts,
// then the commit.
func results(br pgx.BatchResults, head int, stmts []Stmt, commit bool) error {
	for range head {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	for _, s := range stmts {
		if s.Rows == nil {
			tag, err := br.Exec()
			if err != nil && s.Assert != nil && codeOf(err) == "22012" {
				return s.Assert
			} else if err != nil {
				return Classify(err)
			}
			if s.Affected != nil {
				*s.Affected = tag.RowsAffected()
			}
			continue
		}
		rows, err := br.Query()
		if err != nil {
			return Classify(err)
		}
		for rows.Next() {
			if err := s.Rows(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return Classify(err)
		}
		if s.Affected != nil {
			*s.Affected = rows.CommandTag().RowsAffected()
		}
	}
	if commit {
		tag, err := br.Exec()
		if err != nil {
			return err
		}
		if tag.String() != "COMMIT" {
			return fmt.Errorf("commit: the server answered %s", tag)
		}
	}
	return nil
}

// beginStmts are begin's statements one by one, for a pipeline (which runs
// one statement a message); their texts do not vary, so each connection
// prepares them once.
func (d *DB) beginStmts(ctx context.Context) []Stmt {
	t := d.opt.BusyTimeout
	if t <= 0 {
		t = defaultBusy
	}
	out := []Stmt{{Query: "SELECT set_config('lock_timeout', $1, true)", Args: []any{fmt.Sprintf("%dms", t.Milliseconds())}}}
	if sc, ok := ctx.Value(scopeKey{}).(scope); ok {
		out = append(out, Stmt{Query: "SELECT pg_advisory_xact_lock_shared($1)", Args: []any{int64(writeLock)}})
		if sc.key != "" {
			out = append(out, Stmt{Query: "SELECT pg_advisory_xact_lock($1, $2)", Args: []any{int32(scopeLocks), sc.lock()}})
		}
	} else {
		out = append(out, Stmt{Query: "SELECT pg_advisory_xact_lock($1)", Args: []any{int64(writeLock)}})
	}
	if d.bumps(ctx) {
		out = append(out, Stmt{Query: bumpVersion})
	}
	return out
}

// Read runs read statements in one round trip, on a connection of the
// pool: a screen's reads that do not wait for each other's answers. Each
// statement sees what was committed when it began. The statements run in
// one implicit transaction (one Sync ends the pipeline), so a statement
// may leave a value for those after it with set_config(name, value, true)
// (read back with current_setting), gone when the round trip ends: reads
// that depend on an earlier one's answer still take one round trip.
func (d *DB) Read(ctx context.Context, stmts ...Stmt) error {
	c, err := d.db.Conn(ctx)
	if err != nil {
		return d.wrap("", err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		conn := dc.(*rebindConn).Conn.Conn()
		var b pgx.Batch
		for _, s := range stmts {
			b.Queue(translate(s.Query), s.Args...)
		}
		br := conn.SendBatch(ctx, &b)
		err := results(br, 0, stmts, false)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil && conn.IsClosed() {
			err = brokenConn{err}
		}
		return d.explained(err)
	})
	return err
}
