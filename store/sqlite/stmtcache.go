package sqlite

import (
	"context"
	"database/sql/driver"
	"strings"
	"sync/atomic"

	"modernc.org/sqlite"
)

// The statement cache. The driver prepares every query and statement it
// is given with arguments, runs it once and finalizes it: SQLite parses
// and plans the SQL again each time, and under goldtrace serve that was a
// tenth of the server's CPU (the same few dozen statements, for every
// screen's load, submit and status). Each connection of the engine's pools
// keeps its statements prepared instead, by their text, as PostgreSQL's
// driver (pgx) does for its connections.
//
// A statement is used by one caller at a time: a query's statement is
// taken until its rows are closed, and a second use of the same text
// meanwhile (a query inside the loop over another's rows) runs as the
// driver runs it uncached. Only single statements that read or change rows
// are kept (SELECT, WITH, INSERT, UPDATE, DELETE, REPLACE); transaction
// control, PRAGMAs, schema changes and scripts go to the driver as before.

// cachedStmts bounds the statements one connection keeps; past it the
// idle ones are finalized and the cache starts over (queries built with
// IN lists of varying length would otherwise grow it without bound).
const cachedStmts = 128

// cachingConnector opens the driver's connections for dsn, each with a
// statement cache; opened, when set, counts the connections opened.
type cachingConnector struct {
	driver.Connector
	opened *atomic.Uint64
}

func newCachingConnector(dsn string, opened *atomic.Uint64) (driver.Connector, error) {
	c, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, err
	}
	return cachingConnector{Connector: c, opened: opened}, nil
}

func (c cachingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if c.opened != nil {
		c.opened.Add(1)
	}
	conn, ok := dc.(sqliteConn)
	if !ok {
		return dc, nil // not the driver this was written for: uncached
	}
	return &cachingConn{sqliteConn: conn, stmts: map[string]*cachedStmt{}}, nil
}

// sqliteConn is what modernc.org/sqlite's connection implements and the
// engine uses.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// cachingConn is a driver connection with its statements kept prepared.
type cachingConn struct {
	sqliteConn
	stmts map[string]*cachedStmt
}

type cachedStmt struct {
	stmt interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	}
	busy bool // its rows are open
}

// cacheable reports whether query is a statement the cache keeps.
func cacheable(query string) bool {
	q := strings.TrimLeft(query, " \t\r\n")
	end := strings.IndexAny(q, " \t\r\n(")
	if end < 0 {
		return false
	}
	switch strings.ToUpper(q[:end]) {
	case "SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE":
		return true
	}
	return false
}

// stmt is query's statement, prepared on first use; nil when it is not
// kept, in use, or does not prepare (the caller then runs query uncached,
// and the driver reports the error). A script of several statements is
// kept as the driver prepares it: it runs it statement by statement, each
// prepared as it goes, as it would uncached.
func (c *cachingConn) stmt(ctx context.Context, query string) *cachedStmt {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil
		}
		return s
	}
	if !cacheable(query) {
		return nil
	}
	ds, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil
	}
	st, ok := ds.(interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	})
	if !ok {
		ds.Close()
		return nil
	}
	if len(c.stmts) >= cachedStmts {
		c.evict()
	}
	s := &cachedStmt{stmt: st}
	c.stmts[query] = s
	return s
}

// evict finalizes the statements not in use and forgets them.
func (c *cachingConn) evict() {
	for q, s := range c.stmts {
		if !s.busy {
			s.stmt.Close()
			delete(c.stmts, q)
		}
	}
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s := c.stmt(ctx, query)
	if s == nil {
		return c.sqliteConn.ExecContext(ctx, query, args)
	}
	return s.stmt.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s := c.stmt(ctx, query)
	if s == nil {
		return c.sqliteConn.QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	r, ok := rows.(sqliteRows)
	if !ok {
		// Rows that cannot be followed to their end: the statement stays
		// with them and leaves the cache.
		delete(c.stmts, query)
		return rows, nil
	}
	s.busy = true
	return &cachedRows{sqliteRows: r, s: s}, nil
}

// Close finalizes the kept statements, then closes the connection.
func (c *cachingConn) Close() error {
	for q, s := range c.stmts {
		s.stmt.Close()
		delete(c.stmts, q)
	}
	return c.sqliteConn.Close()
}

// sqliteRows is what the driver's rows implement.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeLength
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypePrecisionScale
	driver.RowsColumnTypeScanType
}

// cachedRows are a kept statement's rows: closing them (which resets the
// statement) frees it for the next caller.
type cachedRows struct {
	sqliteRows
	s *cachedStmt
}

func (r *cachedRows) Close() error {
	err := r.sqliteRows.Close()
	r.s.busy = false
	return err
}
