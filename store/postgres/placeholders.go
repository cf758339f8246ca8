package postgres

import (
	"context"
	"database/sql/driver"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// dialect is the SQLite the store writes that PostgreSQL reads otherwise:
// a CROSS JOIN with ON (SQLite's way to fix the join order) is a JOIN; an
// INDEXED BY (SQLite's index hint) goes; char(n) is chr(n); the byte
// length length(CAST(x AS BLOB)) is octet_length(CAST(x AS TEXT)); a
// blob literal x'00ff' is the bytea '\x00ff'; the placeholders are
// rebound; SQLite's one-argument group_concat(x) (DISTINCT or not) is
// string_agg(x, ',').
// Queries are translated once (the store's are a bounded set of texts).
var (
	crossJoinOn = regexp.MustCompile(`(?i)\bCROSS JOIN(\s+\w+(?:\s+(?:AS\s+)?\w+)?\s+ON)\b`)
	indexedBy   = regexp.MustCompile(`(?i)\s+INDEXED BY\s+\w+`)
	charFn      = regexp.MustCompile(`\bchar\(`)
	blobLength  = regexp.MustCompile(`\blength\(CAST\(([\w.]+) AS BLOB\)\)`)
	groupConcat = regexp.MustCompile(`\bgroup_concat\(((?:DISTINCT\s+)?[\w.]+)\)`)
	blobLiteral = regexp.MustCompile(`\b[xX]'([0-9A-Fa-f]*)'`)
	translated  sync.Map // query → its PostgreSQL text
	nTranslated atomic.Int64
)

// maxTranslated bounds the cache of translations.
const maxTranslated = 8192

func translate(q string) string {
	if t, ok := translated.Load(q); ok {
		return t.(string)
	}
	t := rebind(q)
	if strings.Contains(t, "CROSS JOIN") || strings.Contains(t, "cross join") {
		t = crossJoinOn.ReplaceAllString(t, "JOIN$1")
	}
	if strings.Contains(t, "char(") {
		t = charFn.ReplaceAllString(t, "chr(")
	}
	if strings.Contains(t, "AS BLOB") {
		t = blobLength.ReplaceAllString(t, "octet_length(CAST($1 AS TEXT))")
	}
	if strings.Contains(t, "group_concat(") {
		t = groupConcat.ReplaceAllString(t, "string_agg($1, ',')")
	}
	if strings.Contains(t, "x'") || strings.Contains(t, "X'") {
		t = blobLiteral.ReplaceAllString(t, `'\x$1'::bytea`)
	}
	if strings.Contains(t, "INDEXED BY") {
		t = indexedBy.ReplaceAllString(t, "")
	}
	if nTranslated.Add(1) <= maxTranslated {
		translated.Store(q, t)
	}
	return t
}

// rebind rewrites SQLite's placeholders (? and ?N) to PostgreSQL's ($N),
// leaving string literals, quoted identifiers and comments alone. A bare ?
// takes the number after the highest one so far, as SQLite numbers it.
func rebind(q string) string {
	if strings.IndexByte(q, '?') < 0 {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 8)
	high := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"':
			end := i + 1
			for end < len(q) {
				if q[end] == c {
					if end+1 < len(q) && q[end+1] == c { // '' inside '…'
						end += 2
						continue
					}
					break
				}
				end++
			}
			if end >= len(q) {
				end = len(q) - 1
			}
			b.WriteString(q[i : end+1])
			i = end
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			end := strings.IndexByte(q[i:], '\n')
			if end < 0 {
				end = len(q) - i
			}
			b.WriteString(q[i : i+end])
			i += end - 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			end := strings.Index(q[i+2:], "*/")
			if end < 0 {
				end = len(q) - i - 2
			} else {
				end += 2
			}
			b.WriteString(q[i : i+2+end])
			i += 1 + end
		case c == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			n := high + 1
			if j > i+1 {
				n, _ = strconv.Atoi(q[i+1 : j])
			}
			high = max(high, n)
			b.WriteString("$" + strconv.Itoa(n))
			i = j - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// connector opens pgx connections whose statements are translated, and
// whose failures of the server or of the connection are explained.
type connector struct {
	inner driver.Connector
	d     *DB
}

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, c.d.explained(err)
	}
	return &rebindConn{Conn: conn.(*stdlib.Conn), d: c.d}, nil
}

func (c connector) Driver() driver.Driver { return c.inner.Driver() }

// rebindConn is a pgx connection that translates every statement (dialect);
// everything else (transactions, argument conversion, resets) is pgx's.
type rebindConn struct {
	*stdlib.Conn
	d *DB
}

// Prepare and PrepareContext return a statement run through the
// connection's own cache of prepared statements (pgx prepares a text on
// the server at its first run on a connection, and keeps it), not one
// prepared on the server anew: a bulk write prepares its statements again
// in every transaction, and each was a round trip, a parse and a plan.
func (c *rebindConn) Prepare(query string) (driver.Stmt, error) {
	return cachedStmt{c: c, query: query}, nil
}

func (c *rebindConn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	return cachedStmt{c: c, query: query}, nil
}

// cachedStmt is a statement of a connection run as its text
// (rebindConn.Prepare).
type cachedStmt struct {
	c     *rebindConn
	query string
}

func (s cachedStmt) Close() error  { return nil }
func (s cachedStmt) NumInput() int { return -1 }

func (s cachedStmt) CheckNamedValue(v *driver.NamedValue) error { return s.c.CheckNamedValue(v) }

func (s cachedStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.c.ExecContext(context.Background(), s.query, named(args))
}

func (s cachedStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.c.QueryContext(context.Background(), s.query, named(args))
}

func (s cachedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.c.ExecContext(ctx, s.query, args)
}

func (s cachedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.c.QueryContext(ctx, s.query, args)
}

func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

func (c *rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	res, err := c.Conn.ExecContext(ctx, translate(query), args)
	return res, c.d.explained(c.lost(err))
}

func (c *rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := c.Conn.QueryContext(ctx, translate(query), args)
	return rows, c.d.explained(c.lost(err))
}

func (c *rebindConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	return tx, c.d.explained(c.lost(err))
}

// lost turns the failure of a connection the server ended (a restart, a
// failover, an administrator's pg_terminate_backend: the statement did not
// run) into driver.ErrBadConn, so database/sql discards the connection and
// runs a statement outside a transaction again on another one; a
// transaction's statement fails, and the store says the database was
// unavailable.
func (c *rebindConn) lost(err error) error {
	if err == nil {
		return nil
	}
	switch codeOf(err) {
	case "57P01", "57P02", "57P03":
		return driver.ErrBadConn
	}
	if c.Conn.Conn().IsClosed() && pgconn.SafeToRetry(err) {
		return driver.ErrBadConn // nothing was sent
	}
	return err
}
