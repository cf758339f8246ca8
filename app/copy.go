package app

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/store"
)

// CopyResult is what goldtrace copy did and checked.
type CopyResult struct {
	From   string              `json:"from"` // without a password
	To     string              `json:"to"`
	Tables []store.CopiedTable `json:"tables"`
	// Versions are the dataset versions whose stored files (JSONL and
	// manifest) the copy gives back byte for byte, each verified against
	// its manifest record by record.
	Versions []CheckedVersion `json:"versions"`
	// Gold is what an export of all the gold would write now: the same
	// records from the copy as from the original (nil: no gold yet).
	Gold *CheckedVersion `json:"gold,omitempty"`
}

// CheckedVersion is one dataset version (or the current gold) found the
// same in the copy as in the original.
type CheckedVersion struct {
	Ref     string `json:"ref"`
	Records int    `json:"records"`
	SHA256  string `json:"sha256"`
}

// CopyMismatchError is a copy whose check found a difference: the copy is
// kept for inspection, but is not the original's.
type CopyMismatchError struct {
	To, What string
}

func (e *CopyMismatchError) Error() string {
	return fmt.Sprintf("the copy at %s is not the same as the original: %s (remove it and copy again)", e.To, e.What)
}

// CopyProject copies the whole project at from (a SQLite file or a
// postgres:// DSN) into to, which must be a new file, or a database
// without a project's rows, in one transaction (which makes the schema
// of a PostgreSQL database that has none, so a copy that fails leaves it
// without one), then checks the copy: every exported dataset version reads
// back byte-identical and verifies, and the gold builds the same records.
// A password in a DSN is taken out before anything can print it. A SQLite
// file the copy created is removed again when the copy fails. progress,
// when set, is told of each table as it is written.
func CopyProject(ctx context.Context, actor Actor, from, to string, progress func(store.CopiedTable)) (CopyResult, error) {
	if err := Authorize(actor, ActMaintain); err != nil {
		return CopyResult{}, err
	}
	fromClean, fromPW := store.RedactDSN(from)
	toClean, toPW := store.RedactDSN(to)
	res := CopyResult{From: fromClean, To: toClean}
	if fromClean == toClean {
		return res, fmt.Errorf("copy: --from and --to are the same database (%s)", toClean)
	}
	exists, err := store.ProjectExists(ctx, fromClean, fromPW)
	if err != nil {
		return res, err
	}
	if !exists {
		return res, fmt.Errorf("copy: no goldtrace project at %s", fromClean)
	}
	src, err := store.OpenWith(ctx, fromClean, store.Options{ReadOnly: true, Password: fromPW})
	if err != nil {
		return res, err
	}
	defer src.Close()
	created := createdFiles(toClean)
	dst, err := store.OpenWith(ctx, toClean, store.Options{Password: toPW, DeferSchema: true})
	if err != nil {
		created.remove()
		return res, err
	}
	defer dst.Close()
	if res.Tables, err = src.CopyTo(ctx, dst, progress); err != nil {
		dst.Close()
		created.remove()
		if errors.Is(err, store.ErrNotEmpty) {
			return res, fmt.Errorf("copy: %w", err)
		}
		return res, fmt.Errorf("copy %s to %s: %w", fromClean, toClean, err)
	}
	return res, checkCopy(ctx, src, dst, &res)
}

// checkCopy compares the copy with the original: each version's stored
// bytes and records, and the records an export of the gold would write now.
func checkCopy(ctx context.Context, src, dst *store.Store, res *CopyResult) error {
	versions, err := src.DatasetVersions(ctx, "")
	if err != nil {
		return err
	}
	for _, v := range versions {
		ref := fmt.Sprintf("%s@v%d", v.Name, v.Version)
		// Streamed: only a version's compressed bytes are in memory.
		wantContent, wantManifest, err := versionHashes(ctx, src, v, nil)
		if err != nil {
			return fmt.Errorf("check the copy: %s of the original: %w", ref, err)
		}
		var sum dataset.Summary
		gotContent, gotManifest, err := versionHashes(ctx, dst, v, func(r io.Reader, manifest []byte) error {
			m, err := dataset.ParseManifest(manifest)
			if err != nil {
				return fmt.Errorf("manifest: %w", err)
			}
			sum, err = dataset.Verify(r, &m)
			return err
		})
		if err != nil {
			return &CopyMismatchError{To: res.To, What: fmt.Sprintf("%s does not read back or verify (%v)", ref, err)}
		}
		if gotContent != wantContent || gotManifest != wantManifest {
			return &CopyMismatchError{To: res.To, What: ref + " exports different bytes"}
		}
		want, err := src.DatasetRecordHashes(ctx, v.Name, v.Version)
		if err != nil {
			return err
		}
		hashes, err := dst.DatasetRecordHashes(ctx, v.Name, v.Version)
		if err != nil {
			return err
		}
		if !maps.Equal(want, hashes) || len(hashes) != sum.Records {
			return &CopyMismatchError{To: res.To, What: fmt.Sprintf("%s: its stored record hashes differ (%d for %d records)", ref, len(hashes), sum.Records)}
		}
		res.Versions = append(res.Versions, CheckedVersion{Ref: ref, Records: sum.Records, SHA256: sum.SHA256})
	}
	// The gold's records, built from each side in turn.
	goldOf := func(st *store.Store) (n int, sum string, err error) {
		lines, release, err := goldLines(ctx, st, store.GoldFilter{}, gold.CurrentRecordFormat, "", noProgress{})
		defer release()
		if err != nil || len(lines) == 0 {
			return 0, "", err
		}
		c, err := dataset.Assemble(lines)
		if err != nil {
			return 0, "", err
		}
		sum = c.SHA256() // read back before release
		return len(c.Lines), sum, c.Err()
	}
	n, want, err := goldOf(src)
	if err != nil || n == 0 {
		return err
	}
	gotN, got, err := goldOf(dst)
	if err != nil {
		return &CopyMismatchError{To: res.To, What: fmt.Sprintf("its gold cannot be exported (%v)", err)}
	}
	if got != want || gotN != n {
		return &CopyMismatchError{To: res.To, What: "an export of its gold would write different records"}
	}
	res.Gold = &CheckedVersion{Ref: "gold now", Records: n, SHA256: want}
	return nil
}

// versionHashes are the sha256 of a version's JSONL and manifest, the
// JSONL streamed through check when it is set (it must read it all).
func versionHashes(ctx context.Context, st *store.Store, v store.DatasetVersion, check func(io.Reader, []byte) error) (content, manifest [32]byte, err error) {
	_, m, err := st.DatasetManifest(ctx, v.Name, v.Version)
	if err != nil {
		return content, manifest, err
	}
	r, err := st.DatasetContent(ctx, v.Name, v.Version)
	if err != nil {
		return content, manifest, err
	}
	defer r.Close()
	h := sha256.New()
	if check != nil {
		err = check(io.TeeReader(r, h), m)
	} else {
		_, err = io.Copy(h, r)
	}
	h.Sum(content[:0])
	return content, sha256.Sum256(m), err
}

// newFiles are the files of a SQLite project at a path that did not
// exist before the copy (none for a PostgreSQL DSN or an existing file).
type newFiles []string

func createdFiles(path string) newFiles {
	if store.IsPostgres(path) {
		return nil
	}
	var out newFiles
	for _, suffix := range []string{"", "-wal", "-shm", "-journal", "-wait"} {
		if _, err := os.Stat(path + suffix); errors.Is(err, fs.ErrNotExist) {
			out = append(out, path+suffix)
		}
	}
	if len(out) == 0 || out[0] != path {
		return nil // the project file was there: keep all
	}
	return out
}

func (f newFiles) remove() {
	for _, p := range f {
		_ = os.Remove(p)
	}
}
