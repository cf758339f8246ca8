package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// DatasetVersion is one exported version as the store lists it.
type DatasetVersion struct {
	Name          string `json:"name"`
	Version       int    `json:"version"`
	ParentVersion int    `json:"parent_version,omitempty"` // 0: none
	CreatedAt     string `json:"created_at"`
	CreatedBy     string `json:"created_by"`
	Message       string `json:"message"`
	SHA256        string `json:"sha256"`
	Count         int    `json:"count"`
}

const datasetColumns = `name, version, coalesce(parent_version, 0), created_at, created_by, message, sha256, count`

func scanDatasetVersion(sc interface{ Scan(...any) error }) (DatasetVersion, error) {
	var v DatasetVersion
	err := sc.Scan(&v.Name, &v.Version, &v.ParentVersion, &v.CreatedAt, &v.CreatedBy, &v.Message, &v.SHA256, &v.Count)
	return v, err
}

// DatasetVersions lists exported versions, of one dataset when name is not
// empty, by name and version.
func (s *Store) DatasetVersions(ctx context.Context, name string) ([]DatasetVersion, error) {
	q := `SELECT ` + datasetColumns + ` FROM datasets`
	var args []any
	if name != "" {
		q += ` WHERE name = ?`
		args = append(args, name)
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY name, version`, args...)
	if err != nil {
		return nil, fmt.Errorf("list datasets: %w", err)
	}
	defer rows.Close()
	var out []DatasetVersion
	for rows.Next() {
		v, err := scanDatasetVersion(rows)
		if err != nil {
			return nil, fmt.Errorf("list datasets: %w", err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// LatestDatasetVersion is the highest version of name; ErrNotFound when the
// dataset has none.
func (s *Store) LatestDatasetVersion(ctx context.Context, name string) (DatasetVersion, error) {
	v, err := scanDatasetVersion(s.r.QueryRowContext(ctx, `SELECT `+datasetColumns+` FROM datasets
		WHERE name = ? ORDER BY version DESC LIMIT 1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("dataset %q: %w", name, ErrNotFound)
	}
	return v, err
}

// DatasetFiles loads one version with the exact bytes of its JSONL and
// manifest; ErrNotFound when there is no such version.
func (s *Store) DatasetFiles(ctx context.Context, name string, version int) (DatasetVersion, []byte, []byte, error) {
	var manifest, encoding string
	var blob []byte
	row := s.r.QueryRowContext(ctx, `SELECT `+datasetColumns+`, manifest, content_encoding, content FROM datasets
		WHERE name = ? AND version = ?`, name, version)
	var v DatasetVersion
	err := row.Scan(&v.Name, &v.Version, &v.ParentVersion, &v.CreatedAt, &v.CreatedBy, &v.Message, &v.SHA256, &v.Count, &manifest, &encoding, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return v, nil, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, ErrNotFound)
	}
	if err != nil {
		return v, nil, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	content, err := decodeContent(encoding, blob)
	if err != nil {
		return v, nil, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	return v, content, []byte(manifest), nil
}

// DatasetRecordHashes maps each item of a version to its record hash.
func (s *Store) DatasetRecordHashes(ctx context.Context, name string, version int) (map[string]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT item_id, record_hash FROM dataset_items WHERE name = ? AND version = ?`, name, version)
	if err != nil {
		return nil, fmt.Errorf("dataset %s@v%d items: %w", name, version, err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, h string
		if err := rows.Scan(&id, &h); err != nil {
			return nil, fmt.Errorf("dataset %s@v%d items: %w", name, version, err)
		}
		out[id] = h
	}
	return out, rows.Err()
}

// datasetItemsPerInsert is how many dataset_items rows one INSERT carries.
const datasetItemsPerInsert = 500

// NewVersion is a version being inserted, besides its items: the row, the
// manifest, and the content as CompressContent made it.
type NewVersion struct {
	Row      DatasetVersion
	Manifest []byte
	Content  Compressed
}

// InsertDatasetVersion stores version v of dataset name with q (a
// transaction): one dataset_items row per record (hashes: item id → record
// hash), then what rest returns: the version row with its manifest and
// content (DatasetFiles gives the bytes back exactly). rest is called once
// the items are in, so an export can still be making it meanwhile (the
// items' foreign key on the version row is checked at commit). The version
// must be the next one of its dataset (else ErrConflict: another export got
// there first).
func (s *Store) InsertDatasetVersion(ctx context.Context, q Queryer, name string, version int, hashes map[string]string, rest func() (NewVersion, error)) error {
	v := DatasetVersion{Name: name, Version: version}
	var latest int
	if err := q.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM datasets WHERE name = ?`, v.Name).Scan(&latest); err != nil {
		return fmt.Errorf("dataset %s: %w", v.Name, err)
	}
	if v.Version != latest+1 {
		return fmt.Errorf("%w: dataset %s is at v%d, cannot add v%d (another export ran meanwhile; retry)", ErrConflict, v.Name, latest, v.Version)
	}
	if _, err := q.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil { // until this transaction ends
		return err
	}
	ids := make([]string, 0, len(hashes))
	for id := range hashes {
		ids = append(ids, id)
	}
	// In primary-key order the rows append to the index B-tree instead of
	// dirtying pages all over it.
	sort.Strings(ids)
	for start := 0; start < len(ids); start += datasetItemsPerInsert {
		end := min(start+datasetItemsPerInsert, len(ids))
		args := make([]any, 0, 4*(end-start))
		for _, id := range ids[start:end] {
			args = append(args, v.Name, v.Version, id, hashes[id])
		}
		query := `INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", end-start), ",")
		if _, err := q.ExecContext(ctx, query, args...); err != nil {
			return fmt.Errorf("dataset %s@v%d items: %w", v.Name, v.Version, classify(err))
		}
	}
	nv, err := rest()
	if err != nil {
		return err
	}
	if nv.Row.Name != name || nv.Row.Version != version {
		return fmt.Errorf("dataset %s@v%d: the row is %s@v%d", name, version, nv.Row.Name, nv.Row.Version)
	}
	if nv.Content.blob == nil {
		return fmt.Errorf("dataset %s@v%d: no content (CompressContent makes it)", name, version)
	}
	v = nv.Row
	var parent any
	if v.ParentVersion > 0 {
		parent = v.ParentVersion
	}
	if _, err := q.ExecContext(ctx, `INSERT INTO datasets(name, version, parent_version, created_at, created_by, message, sha256, count, manifest, content_encoding, content)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, v.Name, v.Version, parent, v.CreatedAt, v.CreatedBy, v.Message, v.SHA256, v.Count,
		string(nv.Manifest), contentGzip, nv.Content.blob); err != nil {
		return fmt.Errorf("dataset %s@v%d: %w", v.Name, v.Version, classify(err))
	}
	return nil
}
