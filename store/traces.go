package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// InsertOutcome says what InsertTrace did with one trace.
type InsertOutcome int

const (
	// Inserted: the trace and its items are new.
	Inserted InsertOutcome = iota
	// DuplicateID: a trace with this id and the same content is stored.
	DuplicateID
	// DuplicateContent: the same content is stored under another id.
	DuplicateContent
)

// InsertTrace stores t, its tools and its items using q (normally a
// transaction). A trace whose id is stored with different content is an
// ErrConflict; re-inserting the same content is reported, not repeated.
func (s *Store) InsertTrace(ctx context.Context, q Queryer, t trace.Trace, source string) (InsertOutcome, error) {
	w := &traceWriter{s: s, q: q}
	out, _, err := w.insert(ctx, t, source)
	return out, err
}

// The statements InsertTrace runs; an import prepares them once per file.
const (
	sqlTraceHash   = `SELECT content_hash FROM traces WHERE id = ?`
	sqlTraceByHash = `SELECT id FROM traces WHERE content_hash = ? LIMIT 1`
	sqlTraceInsert = `INSERT INTO traces(id, ts, ts_unix, content_hash, metadata, messages, source, imported_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
	sqlToolInsert = `INSERT INTO tools(hash, name, description, parameters) VALUES (?, ?, ?, ?)
			ON CONFLICT(hash) DO NOTHING`
	sqlTraceToolInsert = `INSERT INTO trace_tools(trace_id, position, tool_hash) VALUES (?, ?, ?)`
	sqlMetaInsert      = `INSERT INTO trace_meta(trace_id, key, value) VALUES (?, ?, ?)`
	sqlItemInsert      = `INSERT INTO items(id, trace_id, turn, input_hash, observed, first_tool, n_calls, ts_unix)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
)

var writerStatements = []string{sqlTraceHash, sqlTraceByHash, sqlTraceInsert, sqlToolInsert,
	sqlTraceToolInsert, sqlMetaInsert, sqlItemInsert}

// traceWriter inserts traces through q, using prepared statements when it
// has them (see prepareWriter).
type traceWriter struct {
	s        *Store
	q        Queryer
	prepared map[string]*sql.Stmt
	// toolsSeen remembers tool hashes already written in this transaction.
	toolsSeen map[string]bool
}

// prepareWriter prepares the insert statements on tx; close releases them.
func (s *Store) prepareWriter(ctx context.Context, tx *Tx) (*traceWriter, error) {
	w := &traceWriter{s: s, q: tx, prepared: map[string]*sql.Stmt{}, toolsSeen: map[string]bool{}}
	for _, q := range writerStatements {
		st, err := tx.PrepareContext(ctx, q)
		if err != nil {
			w.close()
			return nil, err
		}
		w.prepared[q] = st
	}
	return w, nil
}

func (w *traceWriter) close() {
	for _, st := range w.prepared {
		st.Close()
	}
}

func (w *traceWriter) exec(ctx context.Context, query string, args ...any) error {
	var err error
	if st, ok := w.prepared[query]; ok {
		_, err = st.ExecContext(ctx, args...)
	} else {
		_, err = w.q.ExecContext(ctx, query, args...)
	}
	return err
}

func (w *traceWriter) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := w.prepared[query]; ok {
		return st.QueryRowContext(ctx, args...)
	}
	return w.q.QueryRowContext(ctx, query, args...)
}

// insert stores one trace and returns what it did and how many items it
// created.
func (w *traceWriter) insert(ctx context.Context, t trace.Trace, source string) (InsertOutcome, int, error) {
	hash := trace.ContentHash(t)
	var stored string
	err := w.queryRow(ctx, sqlTraceHash, t.ID).Scan(&stored)
	switch {
	case err == nil && stored == hash:
		return DuplicateID, 0, nil
	case err == nil:
		return 0, 0, fmt.Errorf("%w: trace %q is already stored with different content", ErrConflict, t.ID)
	case !errors.Is(err, sql.ErrNoRows):
		return 0, 0, err
	}
	var other string
	err = w.queryRow(ctx, sqlTraceByHash, hash).Scan(&other)
	if err == nil {
		return DuplicateContent, 0, nil
	} else if !errors.Is(err, sql.ErrNoRows) {
		return 0, 0, err
	}

	msgs, err := trace.MarshalCanonical(nonNilMessages(t.Messages))
	if err != nil {
		return 0, 0, err
	}
	meta, err := json.Marshal(nonNilMeta(t.Metadata))
	if err != nil {
		return 0, 0, err
	}
	ts, tsUnix := timestampColumns(t.Timestamp)
	if err := w.exec(ctx, sqlTraceInsert, t.ID, ts, tsUnix, hash, string(meta), string(msgs), source, w.s.now()); err != nil {
		return 0, 0, classify(err)
	}
	for i, tool := range t.Tools {
		th := trace.ToolHash(tool)
		if !w.toolsSeen[th] {
			if err := w.exec(ctx, sqlToolInsert, th, tool.Name, tool.Description, string(tool.Parameters)); err != nil {
				return 0, 0, err
			}
			if w.toolsSeen != nil {
				w.toolsSeen[th] = true
			}
		}
		if err := w.exec(ctx, sqlTraceToolInsert, t.ID, i, th); err != nil {
			return 0, 0, err
		}
	}
	keys := make([]string, 0, len(t.Metadata))
	for k := range t.Metadata {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := w.exec(ctx, sqlMetaInsert, t.ID, k, t.Metadata[k]); err != nil {
			return 0, 0, err
		}
	}
	items := trace.Items(t)
	for _, it := range items {
		obs, err := trace.MarshalCanonical(it.Observed)
		if err != nil {
			return 0, 0, err
		}
		if err := w.exec(ctx, sqlItemInsert, it.ID, t.ID, it.Turn, it.InputHash, string(obs), it.FirstTool(), len(it.Observed), tsUnix); err != nil {
			return 0, 0, classify(err)
		}
	}
	return Inserted, len(items), nil
}

func timestampColumns(ts time.Time) (string, any) {
	if ts.IsZero() {
		return "", nil
	}
	return ts.UTC().Format(time.RFC3339Nano), ts.Unix()
}

func nonNilMessages(m []trace.Message) []trace.Message {
	if m == nil {
		return []trace.Message{}
	}
	return m
}

func nonNilMeta(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// Trace loads one stored trace.
func (s *Store) Trace(ctx context.Context, id string) (trace.Trace, error) {
	var t trace.Trace
	var ts, meta, msgs string
	err := s.r.QueryRowContext(ctx, `SELECT id, ts, metadata, messages FROM traces WHERE id = ?`, id).Scan(&t.ID, &ts, &meta, &msgs)
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("trace %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return t, err
	}
	if ts != "" {
		if t.Timestamp, err = time.Parse(time.RFC3339Nano, ts); err != nil {
			return t, fmt.Errorf("trace %q: bad stored timestamp: %w", id, err)
		}
	}
	if err := json.Unmarshal([]byte(meta), &t.Metadata); err != nil {
		return t, fmt.Errorf("trace %q: metadata: %w", id, err)
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	if err := json.Unmarshal([]byte(msgs), &t.Messages); err != nil {
		return t, fmt.Errorf("trace %q: messages: %w", id, err)
	}
	rows, err := s.r.QueryContext(ctx, `SELECT t.name, t.description, t.parameters FROM trace_tools tt
		JOIN tools t ON t.hash = tt.tool_hash WHERE tt.trace_id = ? ORDER BY tt.position`, id)
	if err != nil {
		return t, err
	}
	defer rows.Close()
	t.Tools = []trace.Tool{}
	for rows.Next() {
		var tool trace.Tool
		var params string
		if err := rows.Scan(&tool.Name, &tool.Description, &params); err != nil {
			return t, err
		}
		if params != "" {
			tool.Parameters = json.RawMessage(params)
		}
		t.Tools = append(t.Tools, tool)
	}
	return t, rows.Err()
}

// Item loads one decision point with its context, tools and observed calls.
func (s *Store) Item(ctx context.Context, id string) (trace.Item, error) {
	var traceID string
	var turn int
	err := s.r.QueryRowContext(ctx, `SELECT trace_id, turn FROM items WHERE id = ?`, id).Scan(&traceID, &turn)
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Item{}, fmt.Errorf("item %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return trace.Item{}, err
	}
	t, err := s.Trace(ctx, traceID)
	if err != nil {
		return trace.Item{}, err
	}
	for _, it := range trace.Items(t) {
		if it.Turn == turn {
			return it, nil
		}
	}
	return trace.Item{}, fmt.Errorf("item %q: turn %d missing from trace %q: %w", id, turn, traceID, ErrNotFound)
}
