package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Notifications between the goldtrace processes on one database (serve
// replicas): a write transaction calls Notify, and PostgreSQL delivers the
// notification when, and only when, the transaction commits; every
// process that Listens on the channel hears it within milliseconds.

// Notify queues a notification on channel, sent when tx commits (nothing
// is sent if it rolls back).
func (d *DB) Notify(ctx context.Context, tx *Tx, channel string) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_notify(?, '')`, channel)
	return err
}

// listenRetry is how long Listen waits before it connects again after its
// connection failed (the server restarting, the network).
var listenRetry = 500 * time.Millisecond

// Listen calls heard for every notification on channel until ctx ends, on
// a connection of its own (outside the pool). It calls heard too each time
// it has (re)connected, since notifications sent while it was not
// connected are lost: the caller then checks whatever it watches. It
// returns when ctx ends; while the server cannot be reached it keeps
// trying every listenRetry, and up says whether it is listening.
func (d *DB) Listen(ctx context.Context, channel string, heard func(), up func(bool)) {
	for ctx.Err() == nil {
		d.listenOnce(ctx, channel, heard, up)
		up(false)
		select {
		case <-ctx.Done():
		case <-time.After(listenRetry):
		}
	}
}

// listenOnce listens on one connection until it fails or ctx ends.
func (d *DB) listenOnce(ctx context.Context, channel string, heard func(), up func(bool)) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	conn, err := pgx.ConnectConfig(cctx, d.conn.Copy())
	cancel()
	if err != nil {
		return
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return
	}
	up(true)
	heard()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return
		}
		heard()
	}
}
