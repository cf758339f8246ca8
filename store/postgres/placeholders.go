package postgres

import (
	"context"
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/stdlib"
)

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

// connector opens pgx connections whose statements are rebound.
type connector struct{ inner driver.Connector }

func (c connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &rebindConn{Conn: conn.(*stdlib.Conn)}, nil
}

func (c connector) Driver() driver.Driver { return c.inner.Driver() }

// rebindConn is a pgx connection that rebinds every statement's placeholders;
// everything else (transactions, argument conversion, resets) is pgx's.
type rebindConn struct{ *stdlib.Conn }

func (c *rebindConn) Prepare(query string) (driver.Stmt, error) {
	return c.Conn.Prepare(rebind(query))
}

func (c *rebindConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(query))
}

func (c *rebindConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(query), args)
}

func (c *rebindConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(query), args)
}
