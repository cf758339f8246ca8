package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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
	// RecordFormat is how the version's lines are written
	// (gold.RecordFormat1 or 2); it never changes, so neither do the bytes.
	RecordFormat int `json:"record_format"`
}

const datasetColumns = `name, version, coalesce(parent_version, 0), created_at, created_by, message, sha256, count, record_format`

// dest is where a row of datasetColumns scans to, followed by more.
func (v *DatasetVersion) dest(more ...any) []any {
	return append([]any{&v.Name, &v.Version, &v.ParentVersion, &v.CreatedAt, &v.CreatedBy, &v.Message, &v.SHA256, &v.Count, &v.RecordFormat}, more...)
}

func scanDatasetVersion(sc interface{ Scan(...any) error }) (DatasetVersion, error) {
	var v DatasetVersion
	err := sc.Scan(v.dest()...)
	return v, err
}

// DatasetVersions lists exported versions, of one dataset when name is not
// empty, by name and version.
func (s *Store) DatasetVersions(ctx context.Context, name string) ([]DatasetVersion, error) {
	q := `SELECT ` + datasetColumns + ` FROM datasets WHERE state = 'ready'`
	var args []any
	if name != "" {
		q += ` AND name = ?`
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
		WHERE name = ? AND state = 'ready' ORDER BY version DESC LIMIT 1`, name))
	if errors.Is(err, sql.ErrNoRows) {
		return v, fmt.Errorf("dataset %q: %w", name, ErrNotFound)
	}
	return v, err
}

// DatasetManifest loads one version with its manifest, not its content
// (DatasetContent streams that); ErrNotFound when there is no such version.
func (s *Store) DatasetManifest(ctx context.Context, name string, version int) (DatasetVersion, []byte, error) {
	var v DatasetVersion
	var manifest string
	err := s.r.QueryRowContext(ctx, `SELECT `+datasetColumns+`, manifest FROM datasets WHERE name = ? AND version = ? AND state = 'ready'`, name, version).
		Scan(v.dest(&manifest)...)
	if errors.Is(err, sql.ErrNoRows) {
		return v, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, ErrNotFound)
	}
	if err != nil {
		return v, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	return v, []byte(manifest), nil
}

// DatasetFiles loads one version with the exact bytes of its JSONL and
// manifest; ErrNotFound when there is no such version.
func (s *Store) DatasetFiles(ctx context.Context, name string, version int) (DatasetVersion, []byte, []byte, error) {
	var manifest, encoding string
	var blob []byte
	row := s.r.QueryRowContext(ctx, `SELECT `+datasetColumns+`, manifest, content_encoding, content FROM datasets
		WHERE name = ? AND version = ? AND state = 'ready'`, name, version)
	var v DatasetVersion
	err := row.Scan(v.dest(&manifest, &encoding, &blob)...)
	if errors.Is(err, sql.ErrNoRows) {
		return v, nil, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, ErrNotFound)
	}
	if err != nil {
		return v, nil, nil, fmt.Errorf("dataset %s@v%d: %w", name, version, err)
	}
	if blob, err = s.storedContent(ctx, name, version, blob); err != nil {
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
	rows, err := s.r.QueryContext(ctx, `SELECT item_id, record_hash FROM dataset_items WHERE name = ? AND version = ?
		AND EXISTS (SELECT 1 FROM datasets WHERE name = ? AND version = ? AND state = 'ready')`, name, version, name, version)
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

// storedContent is the content BLOB of a version as stored: blob itself, or
// when that is empty, the version's parts (dataset_parts) joined.
func (s *Store) storedContent(ctx context.Context, name string, version int, blob []byte) ([]byte, error) {
	if len(blob) > 0 {
		return blob, nil
	}
	rows, err := s.r.QueryContext(ctx, `SELECT data FROM dataset_parts WHERE name = ? AND version = ? ORDER BY seq`, name, version)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []byte
	for rows.Next() {
		var part sql.RawBytes
		if err := rows.Scan(&part); err != nil {
			return nil, err
		}
		out = append(out, part...)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if out == nil {
		out = blob
	}
	return out, nil
}
