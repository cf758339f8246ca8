package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestCopyBetweenSQLiteFiles: a project copies into a new SQLite file too,
// an exported version (its content in parts, an empty BLOB in its row)
// included.
func TestCopyBetweenSQLiteFiles(t *testing.T) {
	ctx := context.Background()
	src := openEngine(t, "sqlite")
	if _, err := src.Reader().ExecContext(ctx, `SELECT 1`); err != nil {
		t.Fatal(err)
	}
	if err := src.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, content_encoding, state)
			VALUES ('d', 1, 'now', 'x', 0, '{}', x'', 'gzip', 'ready')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	dst, err := Open(ctx, filepath.Join(t.TempDir(), "copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	if _, err := src.CopyTo(ctx, dst, nil); err != nil {
		t.Fatal(err)
	}
	var state string
	var n int
	if err := dst.Reader().QueryRowContext(ctx, `SELECT state, length(content) FROM datasets`).Scan(&state, &n); err != nil || state != "ready" || n != 0 {
		t.Fatalf("copied version: %q %d %v", state, n, err)
	}
}
