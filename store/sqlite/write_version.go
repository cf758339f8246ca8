package sqlite

import (
	"context"
	"time"
)

// WriteVersion is what the write connection knows of other connections'
// commits: SQLite's data_version there (it changes when another
// connection, another process, commits; not for the connection's own
// commits) and which write connection read it (a connection opened anew
// has a data_version of its own, not comparable). Two equal versions read
// on the write connection mean that no other connection committed in
// between.
type WriteVersion struct {
	Conn uint64 // the write connections opened so far: the current one's number
	Data int64
}

// WriteVersion reads the version outside a transaction (opening the write
// connection if need be), taking the write connection only when it is free
// within wait (ok is false otherwise); held runs while it is held, no
// write transaction of this process under way.
func (d *DB) WriteVersion(ctx context.Context, wait time.Duration, held func()) (v WriteVersion, ok bool) {
	w, err := d.writer(ctx)
	if err != nil {
		return v, false
	}
	tctx, cancel := context.WithTimeout(ctx, wait)
	c, err := w.Conn(tctx)
	cancel()
	if err != nil {
		return v, false
	}
	defer c.Close()
	// The pool has one connection: the one held is the last opened.
	v.Conn = d.writeConns.Load()
	held()
	if err := c.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v.Data); err != nil {
		return v, false
	}
	return v, true
}

// TxWriteVersion reads the version in tx, a write transaction of d's (the
// write lock held: no commit lands until it ends).
func (d *DB) TxWriteVersion(ctx context.Context, tx *Tx) (WriteVersion, error) {
	v := WriteVersion{Conn: d.writeConns.Load()}
	err := tx.QueryRowContext(ctx, `PRAGMA data_version`).Scan(&v.Data)
	return v, err
}
