package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/store/sqlite"
)

// datasetItemsPerInsert is how many dataset_items rows one INSERT carries.
const datasetItemsPerInsert = 500

// NewVersion is a version being written, besides its items: the row, the
// manifest, and the content as CompressContent made it.
type NewVersion struct {
	Row      DatasetVersion
	Manifest []byte
	Content  Compressed
}

// StagedVersion is a dataset version whose items are written but that no
// reader sees yet ('staging'). Complete makes it ready; Abort removes it.
// One of them must be called: until then a heartbeat keeps the version
// from being taken for a killed export's.
type StagedVersion struct {
	s             *Store
	name          string
	version       int
	pace          bulkPace
	stopHeartbeat func()
}

// StageDatasetVersion starts writing version `version` of dataset name:
// the version row, 'staging', and one dataset_items row per record
// (hashes: item id → record hash), in short transactions (bulkPace), so an
// export can make its files and manifest meanwhile. The version must be
// the next one of its dataset (else ErrConflict: another export got there
// first, or is writing it now). A failure (or a cancelled context) removes
// what was written; a version left by a killed export is removed by the
// next export once its heartbeat is a minute old.
func (s *Store) StageDatasetVersion(ctx context.Context, name string, version int, hashes map[string]string) (*StagedVersion, error) {
	return s.stageDatasetVersion(ctx, name, version, hashes, defaultBulkPace)
}

func (s *Store) stageDatasetVersion(ctx context.Context, name string, version int, hashes map[string]string, pace bulkPace) (*StagedVersion, error) {
	// Only the transaction that makes the version ready completes the
	// action: it takes ctx's audit entry, if any.
	if err := s.removeAbandonedVersions(withoutAudit(ctx), pace); err != nil {
		return nil, err
	}
	err := s.WithTx(withoutAudit(ctx), func(tx *Tx) error {
		var latest int
		var staging int
		if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0), coalesce(max(version) FILTER (WHERE state = 'staging'), 0)
			FROM datasets WHERE name = ?`, name).Scan(&latest, &staging); err != nil {
			return fmt.Errorf("dataset %s: %w", name, err)
		}
		if staging != 0 {
			return fmt.Errorf("%w: another export of dataset %s is writing v%d; retry once it is done", ErrConflict, name, staging)
		}
		if version != latest+1 {
			return fmt.Errorf("%w: dataset %s is at v%d, cannot add v%d (another export ran meanwhile; retry)", ErrConflict, name, latest, version)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, content_encoding, state, heartbeat_at, writer)
			VALUES (?, ?, ?, '', 0, '', x'', ?, 'staging', ?, ?)`, name, version, s.now(), contentZstd, s.heartbeat(s.Now()), thisWriter())
		return err
	})
	if err != nil {
		return nil, err
	}
	v := &StagedVersion{s: s, name: name, version: version, pace: pace,
		stopHeartbeat: s.keepVersionAlive(withoutAudit(ctx), name, version)}
	if err := s.writeVersionItems(ctx, name, version, hashes, pace); err != nil {
		return nil, v.fail(ctx, err)
	}
	return v, nil
}

// Complete writes the version's content (one dataset_parts row per zstd
// frame, in short transactions) and then, in one last statement, its row
// with the manifest: it is 'ready' and immutable from then on (DatasetFiles
// gives the bytes back exactly). A failure removes the version.
func (v *StagedVersion) Complete(ctx context.Context, nv NewVersion) error {
	if err := v.s.completeVersion(ctx, v.name, v.version, nv, v.pace); err != nil {
		return v.fail(ctx, err)
	}
	v.stopHeartbeat()
	return nil
}

// Abort removes the staging version (its export failed elsewhere).
func (v *StagedVersion) Abort(ctx context.Context) error {
	v.stopHeartbeat()
	return v.s.removeStagingVersion(withoutAudit(context.WithoutCancel(ctx)), v.name, v.version, v.pace)
}

// fail removes the staging version after err.
func (v *StagedVersion) fail(ctx context.Context, err error) error {
	if uerr := v.Abort(ctx); uerr != nil {
		return fmt.Errorf("%w (and removing the partly written v%d failed: %v; the next export removes it)", err, v.version, uerr)
	}
	return err
}

// keepVersionAlive renews a staging version's heartbeat until the returned
// function is called: writing a large version (the export making its files)
// can take longer than abandonedAfter.
func (s *Store) keepVersionAlive(ctx context.Context, name string, version int) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(abandonedAfter / 4)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				// Not under ctx: stop() cancels it, and a statement
				// interrupted mid-way would roll back the whole group
				// commit it shares with reviewers' submits.
				bg := context.WithoutCancel(ctx)
				_ = s.WithTx(bg, func(tx *Tx) error { // a missed beat is retried at the next tick
					_, err := tx.ExecContext(bg, `UPDATE datasets SET heartbeat_at = ? WHERE name = ? AND version = ? AND state = 'staging'`,
						s.heartbeat(s.Now()), name, version)
					return err
				})
			}
		}
	}()
	return func() { cancel(); <-done }
}

// writeVersionItems writes a staging version's items in short
// transactions.
func (s *Store) writeVersionItems(ctx context.Context, name string, version int, hashes map[string]string, pace bulkPace) error {
	ids := make([]string, 0, len(hashes))
	for id := range hashes {
		ids = append(ids, id)
	}
	// In primary-key order the rows append to the index B-tree instead of
	// dirtying pages all over it.
	sort.Strings(ids)
	return s.inChunks(ctx, len(ids), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		done := 0
		for start := from; start < len(ids) && (done == 0 || time.Now().Before(deadline)); start += datasetItemsPerInsert {
			end := min(start+datasetItemsPerInsert, len(ids))
			// The name and version are bound once (?1, ?2), each row's id
			// and hash after them: half the binds of four per row.
			args := make([]any, 0, 2+2*(end-start))
			args = append(args, name, version)
			for _, id := range ids[start:end] {
				args = append(args, id, hashes[id])
			}
			if _, err := tx.ExecContext(ctx, datasetItemsInsert(end-start), args...); err != nil {
				return 0, fmt.Errorf("dataset %s@v%d items: %w", name, version, classify(err))
			}
			done += end - start
		}
		return done, nil
	})
}

// datasetItemsInsert is the INSERT of n dataset_items rows of one version:
// name ?1, version ?2, then each row's item id and record hash as bare
// placeholders, which SQLite numbers 3, 4, 5… (each takes the number after
// the highest so far). Numbering them all would cost SQLite a search of
// its list of parameter names for each one bound.
func datasetItemsInsert(n int) string {
	return `INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ` +
		strings.TrimSuffix(strings.Repeat("(?1, ?2, ?, ?),", n), ",")
}

// completeVersion writes a staging version's content in short
// transactions, then makes it ready.
func (s *Store) completeVersion(ctx context.Context, name string, version int, nv NewVersion, pace bulkPace) error {
	if nv.Row.Name != name || nv.Row.Version != version {
		return fmt.Errorf("dataset %s@v%d: the row is %s@v%d", name, version, nv.Row.Name, nv.Row.Version)
	}
	members := nv.Content.members
	if len(members) == 0 {
		return fmt.Errorf("dataset %s@v%d: no content (CompressContent makes it)", name, version)
	}
	err := s.inChunks(ctx, len(members), pace, func(tx *Tx, from int, deadline time.Time) (int, error) {
		done := 0
		for i := from; i < len(members) && (done == 0 || time.Now().Before(deadline)); i++ {
			if _, err := tx.ExecContext(ctx, `INSERT INTO dataset_parts(name, version, seq, data) VALUES (?, ?, ?, ?)`,
				name, version, i, members[i]); err != nil {
				return 0, fmt.Errorf("dataset %s@v%d content: %w", name, version, classify(err))
			}
			done++
		}
		return done, nil
	})
	if err != nil {
		return err
	}
	v := nv.Row
	var parent any
	if v.ParentVersion > 0 {
		parent = v.ParentVersion
	}
	return s.withTxAgainIfUndone(ctx, func(tx *Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE datasets SET parent_version = ?, created_at = ?, created_by = ?, message = ?, sha256 = ?,
			count = ?, manifest = ?, record_format = ?, state = 'ready', heartbeat_at = '' WHERE name = ? AND version = ? AND state = 'staging'`,
			parent, v.CreatedAt, v.CreatedBy, v.Message, v.SHA256, v.Count, string(nv.Manifest), max(1, v.RecordFormat), name, version)
		if err != nil {
			return fmt.Errorf("dataset %s@v%d: %w", name, version, classify(err))
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("dataset %s@v%d was removed while it was written (taken for an export that did not finish); export again", name, version)
		}
		return nil
	})
}

// removeAbandonedVersions removes staging versions a killed export left
// behind: its process is gone, or no heartbeat for abandonedAfter.
func (s *Store) removeAbandonedVersions(ctx context.Context, pace bulkPace) error {
	type ref struct {
		name    string
		version int
	}
	var left []ref
	err := s.scanRows(ctx, func(row scanner) error {
		var r ref
		if err := row.Scan(&r.name, &r.version); err != nil {
			return err
		}
		left = append(left, r)
		return nil
	}, `SELECT name, version FROM datasets WHERE state = 'staging' AND (heartbeat_at < ? OR writer IN (SELECT value FROM json_each(?)))`,
		s.heartbeat(s.Now().Add(-abandonedAfter)), s.goneWriters(ctx))
	if err != nil {
		return s.wrap("read datasets", err)
	}
	for _, r := range left {
		if err := s.removeStagingVersion(ctx, r.name, r.version, pace); err != nil {
			return fmt.Errorf("remove dataset %s@v%d left half-written by an export that did not finish: %w", r.name, r.version, err)
		}
	}
	return nil
}

// removeStagingVersion removes a version that never became ready, in short
// transactions (pace): its content parts, its items, then the row.
func (s *Store) removeStagingVersion(ctx context.Context, name string, version int, pace bulkPace) error {
	for _, table := range []string{"dataset_parts", "dataset_items"} {
		err := s.paced(ctx, pace, sqlite.UntilDone(func(tx *Tx) (int, error) {
			res, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE rowid IN (SELECT t.rowid FROM `+table+` t
				JOIN datasets d ON d.name = t.name AND d.version = t.version
				WHERE t.name = ? AND t.version = ? AND d.state = 'staging' LIMIT 2000)`, name, version)
			if err != nil {
				return 0, err
			}
			n, err := res.RowsAffected()
			return int(n), err
		}))
		if err != nil {
			return err
		}
	}
	return s.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM datasets WHERE name = ? AND version = ? AND state = 'staging'`, name, version)
		if err != nil && strings.Contains(err.Error(), "FOREIGN KEY") {
			return errors.New("its rows are still referenced")
		}
		return err
	})
}

// thisWriter names this process as the writer of a staging version.
func thisWriter() string {
	host, _ := os.Hostname()
	return host + " " + strconv.Itoa(os.Getpid())
}

// goneWriters lists, as a JSON array, the writers of staging versions that
// are processes of this host that no longer run.
func (s *Store) goneWriters(ctx context.Context) string {
	writers, _ := queryStrings(ctx, s.r, `SELECT DISTINCT writer FROM datasets WHERE state = 'staging'`) // none: the heartbeat decides
	host, _ := os.Hostname()
	gone := []string{}
	for _, w := range writers {
		h, pid, ok := strings.Cut(w, " ")
		n, err := strconv.Atoi(pid)
		if ok && err == nil && h == host && processGone(n) {
			gone = append(gone, w)
		}
	}
	b, _ := json.Marshal(gone) // strings: no error
	return string(b)
}
