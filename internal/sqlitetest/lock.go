// Package sqlitetest holds a SQLite database in tests the way another
// process would.
package sqlitetest

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	_ "modernc.org/sqlite" // the driver the project uses
)

// HoldWriteLock takes the write lock of the database at path from a
// connection of its own (waiting up to wait for it), as another process
// running a long write would, until release is called; the test's end
// calls it too.
func HoldWriteLock(t testing.TB, path string, wait time.Duration) (release func()) {
	t.Helper()
	db, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)", path, wait.Milliseconds()))
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		conn.Close()
		db.Close()
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(context.Background(), "ROLLBACK")
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	return release
}
