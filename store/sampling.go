package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
)

// CandidateFilter says which stored items sampling may draw and how they are
// grouped.
type CandidateFilter struct {
	Where          []sampling.Condition // all must hold
	Since, Until   time.Time            // trace timestamp in [Since, Until); zero = open
	Turns          string               // sampling.TurnsAll (or ""), sampling.TurnsCalls, sampling.TurnsNoCalls
	ExcludeSampled bool                 // only items in no batch yet
	By             string               // "", "tool" or "meta.NAME": the Stratum of each candidate
}

// Candidate is one item sampling may draw: what it needs, not the trace.
// Its fields match sampling.Candidate so callers can convert it directly.
type Candidate struct {
	Row       int64 // the item's rowid
	ItemID    string
	TraceID   string
	Turn      int
	Stratum   string
	InputHash string
	TS        int64
	HasTS     bool
}

// CandidatesByRow loads the candidates with these rowids (Stratum is left
// empty: it depends on the scan's filter).
func (s *Store) CandidatesByRow(ctx context.Context, rowids []int64) (map[int64]Candidate, error) {
	out := make(map[int64]Candidate, len(rowids))
	err := queryIn(ctx, s.r, `SELECT rowid, id, trace_id, turn, input_hash, ts_unix FROM items WHERE rowid IN (`, rowids, func(rows *sql.Rows) error {
		var c Candidate
		var ts sql.NullInt64
		if err := rows.Scan(&c.Row, &c.ItemID, &c.TraceID, &c.Turn, &c.InputHash, &ts); err != nil {
			return err
		}
		c.TS, c.HasTS = ts.Int64, ts.Valid
		out[c.Row] = c
		return nil
	})
	return out, err
}

// queryIn runs query, which ends in "IN (", over keys, 500 at a time,
// calling row for each row it reads.
func queryIn[K any](ctx context.Context, db *sql.DB, query string, keys []K, row func(*sql.Rows) error) error {
	const chunk = 500
	for start := 0; start < len(keys); start += chunk {
		part := keys[start:min(start+chunk, len(keys))]
		args := make([]any, len(part))
		for i, k := range part {
			args[i] = k
		}
		rows, err := db.QueryContext(ctx, query+`?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := row(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// candidateScan is the scan DrawCandidates makes for a filter: the tools
// whose rows it reads, one query per tool and slice, and how each row's
// stratum is found.
type candidateScan struct {
	// query reads a tool's rows in a slice of time: its parameters are
	// the tool, the least and greatest ts_unix, then args. Its columns are
	// input_hi, input_lo, rowid, ts_unix and, with --by meta.NAME, metaset.
	query string
	// untimed reads a tool's rows without a timestamp: the same columns;
	// its parameters are the tool, then args.
	untimed      string
	args         []any
	since, until time.Time
	columns      int
	tools        []string
	strata       []string
	byTool       bool
	// metaStrata is, with --by meta.NAME, the place in strata of each
	// metaset's value (-1: not text), noMeta that of sampling.NoMetaValue.
	metaStrata map[int64]int32
	noMeta     int32
	// perPart is about how many rows a part of the key range holds
	// (rowsPerPart).
	perPart int
}

// stratumOf is the place in strata of the stratum of a row of tool t with
// these columns.
func (c candidateScan) stratumOf(t int32, cols []driver.Value) (int32, error) {
	switch {
	case c.byTool:
		return t, nil
	case c.metaStrata == nil:
		return 0, nil
	}
	if cols[4] == nil {
		return c.noMeta, nil
	}
	m, ok := cols[4].(int64)
	if !ok {
		return 0, fmt.Errorf("metaset %v (%T): not a number", cols[4], cols[4])
	}
	i, ok := c.metaStrata[m]
	switch {
	case !ok:
		return c.noMeta, nil
	case i < 0:
		return 0, fmt.Errorf("metaset %d: its value is not text", m)
	}
	return i, nil
}

// candidateScan checks f and builds its scan, reading the tools (and with
// --by meta.NAME, the key's values) it needs.
func (s *Store) candidateScan(ctx context.Context, f CandidateFilter) (candidateScan, error) {
	var c candidateScan
	var where []string
	var only []string // --where tool=NAME
	for _, w := range f.Where {
		if err := sampling.ValidKey(w.Key); err != nil {
			return c, err
		}
		if w.Key == "tool" {
			only = append(only, w.Value)
			continue
		}
		where = append(where, `i.metaset IN (SELECT metaset FROM (`+sqlMetasetsWith+`) mv WHERE value = ?)`)
		c.args = append(c.args, strings.TrimPrefix(w.Key, "meta."), w.Value)
	}
	// --since and --until bound each tool's slices of time (candidateUnits).
	c.since, c.until = f.Since, f.Until
	switch f.Turns {
	case "", sampling.TurnsAll:
	case sampling.TurnsCalls:
		where = append(where, `i.n_calls > 0`)
	case sampling.TurnsNoCalls:
		where = append(where, `i.n_calls = 0`)
	default:
		return c, fmt.Errorf("turns %q: must be %s, %s or %s", f.Turns, sampling.TurnsCalls, sampling.TurnsNoCalls, sampling.TurnsAll)
	}
	cols := `i.input_hi, i.input_lo, i.rowid, i.ts_unix`
	c.columns = 4
	switch {
	case f.By == "":
		c.strata = []string{""}
	case f.By == "tool":
		c.byTool = true
	default:
		if err := sampling.ValidKey(f.By); err != nil {
			return c, err
		}
		cols += `, i.metaset`
		c.columns = 5
		if err := s.metaStrata(ctx, &c, strings.TrimPrefix(f.By, "meta.")); err != nil {
			return c, err
		}
	}
	filter := ""
	for _, w := range where {
		filter += ` AND ` + w
	}
	// INDEXED BY: the covering index holds each tool's rows by time; left
	// to itself the planner may pick another index and read the table.
	from := `SELECT ` + cols + ` FROM items i INDEXED BY items_sampling WHERE i.first_tool = ?`
	c.query = from + ` AND i.ts_unix >= ? AND i.ts_unix <= ?` + filter
	c.untimed = from + ` AND i.ts_unix IS NULL` + filter
	switch {
	case len(only) > 0:
		// Every --where tool= must hold: one tool, or none.
		c.tools = only[:1]
		for _, t := range only[1:] {
			if t != only[0] {
				c.tools = nil
			}
		}
	default:
		// Each tool found by a seek in the index from the one before.
		tools, err := queryStrings(ctx, s.r, `WITH RECURSIVE t(name) AS (SELECT min(first_tool) FROM items
			UNION ALL SELECT (SELECT min(first_tool) FROM items WHERE first_tool > t.name) FROM t WHERE t.name IS NOT NULL)
			SELECT name FROM t WHERE name IS NOT NULL`)
		if err != nil {
			return c, fmt.Errorf("scan candidates: %w", err)
		}
		c.tools = tools
	}
	if c.byTool {
		c.strata = c.tools
	}
	return c, nil
}

// metaStrata reads the values metadata key name has in each metaset as
// c's strata.
func (s *Store) metaStrata(ctx context.Context, c *candidateScan, name string) error {
	rows, err := s.r.QueryContext(ctx, sqlMetasetsWith, name)
	if err != nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	defer rows.Close()
	c.metaStrata = map[int64]int32{}
	place := map[string]int32{}
	at := func(v string) int32 {
		i, ok := place[v]
		if !ok {
			i = int32(len(c.strata))
			c.strata = append(c.strata, v)
			place[v] = i
		}
		return i
	}
	c.noMeta = at(sampling.NoMetaValue)
	for rows.Next() {
		var m int64
		var v any
		if err := rows.Scan(&m, &v); err != nil {
			return fmt.Errorf("scan candidates: %w", err)
		}
		switch t, ok := text(v); {
		case v == nil:
			c.metaStrata[m] = c.noMeta
		case ok:
			c.metaStrata[m] = at(t)
		default:
			c.metaStrata[m] = -1
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan candidates: %w", err)
	}
	return nil
}

// SampledInputHashes lists the input hashes of every item already in a
// batch: sampling never draws another copy of those inputs. An item is in
// a batch exactly when its status is not 'new' (a batch's items leave it
// in the transaction that adds them, and get it back only with the last
// batch holding them), their in_batch is set with it, and
// items_sampled_inputs holds their hashes.
func (s *Store) SampledInputHashes(ctx context.Context) ([]string, error) {
	return queryStrings(ctx, s.r, `SELECT DISTINCT input_hash FROM items WHERE in_batch = 1 ORDER BY 1`)
}

// sqlMetasetsWith selects (metaset, value): the metasets that have the key
// given as its one parameter, with the key's value. Keys may hold any
// character, so they are matched as json_each reads them, never put into
// a JSON path.
const sqlMetasetsWith = `SELECT m.id AS metaset, j.value AS value FROM metasets m, json_each(m.json) j WHERE j.key = ?`

// sqlMetasetUsed is true for a metaset m that some stored trace has (an
// undone import may leave one no trace has).
const sqlMetasetUsed = `EXISTS (SELECT 1 FROM traces t WHERE t.metaset = m.id)`

// MetaKeys lists the metadata keys stored traces have.
func (s *Store) MetaKeys(ctx context.Context) ([]string, error) {
	return queryStrings(ctx, s.r, `SELECT DISTINCT j.key FROM metasets m, json_each(m.json) j WHERE `+sqlMetasetUsed+` ORDER BY 1`)
}

// HasMetaKey reports whether any stored trace has metadata key name.
func (s *Store) HasMetaKey(ctx context.Context, name string) (bool, error) {
	var found bool
	err := s.r.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM metasets m, json_each(m.json) j WHERE j.key = ? AND `+sqlMetasetUsed+`)`, name).Scan(&found)
	return found, err
}

// ItemRowsBound is the largest item row, 0 when there are no items: at
// least the number of items (rows are numbered from 1 up; more once some
// are removed), read in no time, where count(*) reads a whole index.
func (s *Store) ItemRowsBound(ctx context.Context) (int, error) {
	var n sql.NullInt64
	if err := s.r.QueryRowContext(ctx, `SELECT max(rowid) FROM items`).Scan(&n); err != nil || !n.Valid {
		return 0, err
	}
	return int(max(n.Int64, 1)), nil
}

// CountItems is the number of stored items.
func (s *Store) CountItems(ctx context.Context) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM items`).Scan(&n)
	return n, err
}

// MissingUsers returns the names (in the given order) that are not users.
func (s *Store) MissingUsers(ctx context.Context, names []string) ([]string, error) {
	var missing []string
	for _, name := range names {
		var n int
		if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE name = ?`, name).Scan(&n); err != nil {
			return nil, err
		}
		if n == 0 {
			missing = append(missing, name)
		}
	}
	return missing, nil
}

// NextBatchName is "b" followed by one more than the largest number of the
// batches named that way (b1 for the first).
func (s *Store) NextBatchName(ctx context.Context) (string, error) {
	names, err := queryStrings(ctx, s.r, `SELECT name FROM batches WHERE name LIKE 'b%'`)
	if err != nil {
		return "", err
	}
	next := 1
	for _, name := range names {
		// b and a digit (LIKE ignores case on SQLite; Atoi takes a sign).
		if len(name) < 2 || name[0] != 'b' || name[1] < '0' || name[1] > '9' {
			continue
		}
		if n, err := strconv.Atoi(name[1:]); err == nil && n >= next {
			next = n + 1
		}
	}
	return "b" + strconv.Itoa(next), nil
}

// NewBatch is a sample to store: the items in sample order and, per item, its
// reviewers.
type NewBatch struct {
	Name      string
	Seed      int64
	PerItem   int
	Params    any // the sampling flags, stored as JSON
	CreatedBy string
	Items     []BatchItem
	// Traces are stored before the items (sample --from a file: the
	// traces holding the sampled items), from Source. A trace whose content
	// is stored under another id fails the batch.
	Traces []trace.Trace
	Source string
}

// BatchItem is one sampled item with its stratum and reviewers.
type BatchItem struct {
	ItemID    string
	Stratum   string
	Reviewers []string
}

// BatchSummary is one batch as `goldtrace batches` lists it.
type BatchSummary struct {
	Name        string          `json:"name"`
	CreatedAt   string          `json:"created_at"`
	Seed        int64           `json:"seed"`
	Items       int             `json:"items"`
	PerItem     int             `json:"per_item"`
	Reviewers   []string        `json:"reviewers"`
	Assignments map[string]int  `json:"assignments"` // by status
	Params      json.RawMessage `json:"params"`
}

// AssignmentStatuses are the assignment states, in workflow order.
var AssignmentStatuses = []string{"pending", "draft", "submitted", "skipped"}

// Batches lists every batch, oldest first.
func (s *Store) Batches(ctx context.Context) ([]BatchSummary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT b.name, b.created_at, b.seed, b.per_item, b.params,
		(SELECT count(*) FROM batch_items bi WHERE bi.batch = b.name)
		FROM batches b ORDER BY b.created_at, b.name`)
	if err != nil {
		return nil, err
	}
	var out []BatchSummary
	for rows.Next() {
		var b BatchSummary
		var params string
		if err := rows.Scan(&b.Name, &b.CreatedAt, &b.Seed, &b.PerItem, &params, &b.Items); err != nil {
			rows.Close()
			return nil, err
		}
		b.Params = json.RawMessage(params)
		b.Assignments = map[string]int{}
		for _, st := range AssignmentStatuses {
			b.Assignments[st] = 0
		}
		b.Reviewers = []string{}
		out = append(out, b)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for i := range out {
		counts, err := s.r.QueryContext(ctx, `SELECT reviewer, status, count(*) FROM assignments WHERE batch = ? GROUP BY reviewer, status`, out[i].Name)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for counts.Next() {
			var reviewer, status string
			var n int
			if err := counts.Scan(&reviewer, &status, &n); err != nil {
				counts.Close()
				return nil, err
			}
			out[i].Assignments[status] += n
			if !seen[reviewer] {
				seen[reviewer] = true
				out[i].Reviewers = append(out[i].Reviewers, reviewer)
			}
		}
		counts.Close()
		if err := counts.Err(); err != nil {
			return nil, err
		}
		sort.Strings(out[i].Reviewers)
	}
	return out, nil
}

// InputHashes maps each of these item ids that exists to its input hash.
func (s *Store) InputHashes(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	err := queryIn(ctx, s.r, `SELECT id, input_hash FROM items WHERE id IN (`, ids, func(rows *sql.Rows) error {
		var id, h string
		if err := rows.Scan(&id, &h); err != nil {
			return err
		}
		out[id] = h
		return nil
	})
	return out, err
}

// inputKeys is what items.input_hi and input_lo hold for an input hash:
// its first and second 64 bits as signed numbers when it is 64 lowercase
// hex digits (as trace.InputHash writes it), else 0 and 0.
func inputKeys(inputHash string) (hi, lo int64) {
	if len(inputHash) != 64 {
		return 0, 0
	}
	var k [2]uint64
	for i := range 64 {
		c := inputHash[i]
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		default:
			return 0, 0
		}
		if i < 32 {
			k[i/16] = k[i/16]<<4 | uint64(d)
		}
	}
	return int64(k[0]), int64(k[1])
}
