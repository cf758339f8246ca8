package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/goldtrace/goldtrace/internal/dberr"
)

// Error explanation: PostgreSQL's failures become *dberr.DBError of a kind
// with one line naming the host and database (never the password), and
// constraint failures the kinds ErrConflict and ErrImmutable, so the store
// and its callers never see the driver's words.

// codeOf is the SQLSTATE of a server error, "" for others.
func codeOf(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// retryable reports a failure that undid a transaction and that running it
// again may not meet: a serialization failure or a deadlock.
func retryable(err error) bool {
	c := codeOf(err)
	return c == "40001" || c == "40P01"
}

// explain is the kind and the one-line reason of a failure of the server
// or of the connection to it; nil kind for errors that are not about them
// (constraints, bad SQL, the caller's own).
func (d *DB) explain(err error) (kind error, why string) {
	code := codeOf(err)
	switch {
	case code == "28P01", code == "28000":
		return dberr.ErrUnavailable, "the server refused the user or password (give the password with PGPASSWORD or ~/.pgpass)"
	case code == "3D000":
		return dberr.ErrUnavailable, fmt.Sprintf("database %q does not exist on %s (create it with createdb, then goldtrace init)", d.database, d.host)
	case code == "42501":
		return dberr.ErrReadOnly, "the user may not write it (permission denied)"
	case code == "25006":
		return dberr.ErrReadOnly, "opened read-only"
	case code == "53100":
		return dberr.ErrDiskFull, ""
	case code == "53300", code == "57P03", code == "57P01", code == "57P02":
		return dberr.ErrUnavailable, "the server is not accepting connections (starting, shutting down or full)"
	case retryable(err), code == "55P03", code == "57014" && !errors.Is(err, context.Canceled):
		return dberr.ErrBusy, ""
	case code == "XX001", code == "XX002":
		return dberr.ErrDamaged, ""
	case code != "":
		return nil, ""
	}
	if errors.Is(err, driver.ErrBadConn) {
		return dberr.ErrUnavailable, fmt.Sprintf("the connection to %s port %d was lost (the server restarting?); try again", d.host, d.port)
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	msg := err.Error()
	if !errors.As(err, &ce) && !errors.As(err, &ne) && !strings.Contains(msg, "connection refused") &&
		!strings.Contains(msg, "conn closed") && !strings.Contains(msg, "unexpected EOF") {
		return nil, ""
	}
	switch {
	case strings.Contains(msg, "connection refused"):
		return dberr.ErrUnavailable, fmt.Sprintf("no PostgreSQL server answers at %s port %d (connection refused)", d.host, d.port)
	case strings.Contains(msg, "no such host"):
		return dberr.ErrUnavailable, fmt.Sprintf("host %s is not known", d.host)
	case strings.Contains(msg, "timeout"):
		return dberr.ErrUnavailable, fmt.Sprintf("the server at %s port %d did not answer in time", d.host, d.port)
	case strings.Contains(msg, "password"):
		return dberr.ErrUnavailable, "the server wants a password (give it with PGPASSWORD or ~/.pgpass)"
	case strings.Contains(msg, "SSL"), strings.Contains(msg, "tls"):
		return dberr.ErrUnavailable, "a TLS connection to the server failed (see the DSN's sslmode)"
	}
	return dberr.ErrUnavailable, fmt.Sprintf("the connection to %s port %d failed", d.host, d.port)
}

// explained is err as a *dberr.DBError when the server or the connection
// to it failed (explain), so that every query of the pool, reads included,
// fails in one line naming the database and never in pgx's words; other
// errors (constraints, serialization failures WithTx retries) stay as
// they are. A broken connection stays recognisable to database/sql
// (driver.ErrBadConn), which then retries on another.
func (d *DB) explained(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var de *dberr.DBError
	if errors.As(err, &de) {
		return err
	}
	k, why := d.explain(err)
	if k == nil || k == dberr.ErrBusy {
		return err
	}
	keep := k
	if errors.Is(err, driver.ErrBadConn) {
		keep = driver.ErrBadConn
	}
	return &dberr.DBError{Path: d.name, Kind: k, Err: keep, Why: why}
}

// Wrap turns a failure of the server into a *dberr.DBError naming the
// database; other errors go through Classify, prefixed with op when it is
// not "".
func (d *DB) Wrap(op string, err error) error { return d.wrap(op, err) }

func (d *DB) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	var de *dberr.DBError
	if errors.As(err, &de) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if k, why := d.explain(err); k != nil {
		// Err keeps the kind only: pgx's own text may quote the DSN.
		return &dberr.DBError{Path: d.name, Op: op, Kind: k, Err: k, Why: why}
	}
	if op != "" {
		return fmt.Errorf("%s: %w", op, Classify(err))
	}
	return Classify(err)
}

// nulText is PostgreSQL's refusal of text holding a NUL character, which
// SQLite stores, in a person's words; the server's error stays beneath it.
type nulText struct{ err error }

func (e nulText) Error() string {
	return `a text value holds a NUL character (\u0000), which PostgreSQL cannot store: take it out of the input`
}

func (e nulText) Unwrap() error { return e.err }

// IsNULText reports whether err is PostgreSQL refusing text that holds a
// NUL character.
func IsNULText(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "22021" && strings.Contains(pe.Message, "0x00")
}

// Classify turns constraint failures into dberr.ErrConflict (a unique key
// taken) and dberr.ErrImmutable (a trigger that raised "immutable: …");
// other errors are returned as they are.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	switch code := codeOf(err); {
	case IsNULText(err):
		return nulText{err}
	case strings.Contains(err.Error(), "immutable:"):
		return errors.Join(dberr.ErrImmutable, err)
	case code == "23505":
		return errors.Join(dberr.ErrConflict, err)
	}
	return err
}

// Explain rewords an error that carries a raw failure of the server or of
// the connection to the database dsn names into a *dberr.DBError; other
// errors are returned as they are.
func Explain(dsn string, err error) error {
	if err == nil {
		return nil
	}
	var de *dberr.DBError
	if errors.As(err, &de) {
		return err
	}
	clean, _ := Redact(dsn)
	d := &DB{name: clean}
	if cfg, perr := pgx.ParseConfig(dsn); perr == nil {
		d.host, d.port, d.database = cfg.Host, cfg.Port, cfg.Database
	}
	if k, _ := d.explain(err); k != nil {
		return d.wrap("", err)
	}
	var pe *pgconn.PgError
	if IsNULText(err) {
		return fmt.Errorf("database %s: %w", clean, nulText{err})
	}
	if errors.As(err, &pe) && !errors.Is(err, dberr.ErrConflict) && !errors.Is(err, dberr.ErrImmutable) {
		// A statement the server refused that no rule above explains: a
		// query of goldtrace's that PostgreSQL does not run as SQLite does.
		return fmt.Errorf("database %s: PostgreSQL refused a statement of goldtrace's (%s, SQLSTATE %s): please report it as a bug", clean, pe.Message, pe.Code)
	}
	return err
}
