package store

import (
	"context"
	"database/sql"
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
	// Sampled, with ExcludeSampled, is called once, from the scan's
	// caller's goroutine before any row reaches it, with the input hashes
	// of the items in a batch (SampledInputHashes, as often as items hold
	// each): read in one pass with those items' rows, beside the scan.
	Sampled func(inputHashes []string)
	By      string // "", "tool" or "meta.NAME": the Stratum of each candidate
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
	const chunk = 500
	for start := 0; start < len(rowids); start += chunk {
		part := rowids[start:min(start+chunk, len(rowids))]
		args := make([]any, len(part))
		for i, r := range part {
			args[i] = r
		}
		rows, err := s.r.QueryContext(ctx, `SELECT rowid, id, trace_id, turn, input_hash, ts_unix FROM items WHERE rowid IN (?`+
			strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var c Candidate
			var ts sql.NullInt64
			if err := rows.Scan(&c.Row, &c.ItemID, &c.TraceID, &c.Turn, &c.InputHash, &ts); err != nil {
				rows.Close()
				return nil, err
			}
			c.TS, c.HasTS = ts.Int64, ts.Valid
			out[c.Row] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// candidateQuery builds the scan for the items with (withTS) or without a
// timestamp; each half is ordered by an index.
func candidateQuery(f CandidateFilter, withTS bool) (string, []any, error) {
	var args []any
	stratum := `''`
	with, join := "", ""
	switch {
	case f.By == "":
	case f.By == "tool":
		stratum = `i.first_tool`
	default:
		if err := sampling.ValidKey(f.By); err != nil {
			return "", nil, err
		}
		// The key's value in each metaset, read once; each item finds its
		// own by the metaset its index entry carries.
		with = `WITH stratum(metaset, value) AS MATERIALIZED (` + sqlMetasetsWith + `) `
		stratum = `COALESCE(s.value, '` + sampling.NoMetaValue + `')`
		join = ` LEFT JOIN stratum s ON s.metaset = i.metaset`
		args = append(args, strings.TrimPrefix(f.By, "meta."))
	}
	var where []string
	if withTS {
		where = append(where, `i.ts_unix IS NOT NULL`)
	} else {
		where = append(where, `i.ts_unix IS NULL`)
	}
	for _, c := range f.Where {
		if err := sampling.ValidKey(c.Key); err != nil {
			return "", nil, err
		}
		if c.Key == "tool" {
			where = append(where, `i.first_tool = ?`)
			args = append(args, c.Value)
			continue
		}
		where = append(where, `i.metaset IN (SELECT metaset FROM (`+sqlMetasetsWith+`) mv WHERE value = ?)`)
		args = append(args, strings.TrimPrefix(c.Key, "meta."), c.Value)
	}
	if !f.Since.IsZero() {
		where = append(where, `i.ts_unix >= ?`)
		args = append(args, f.Since.Unix())
	}
	if !f.Until.IsZero() {
		where = append(where, `i.ts_unix < ?`)
		args = append(args, f.Until.Unix())
	}
	switch f.Turns {
	case "", sampling.TurnsAll:
	case sampling.TurnsCalls:
		where = append(where, `i.n_calls > 0`)
	case sampling.TurnsNoCalls:
		where = append(where, `i.n_calls = 0`)
	default:
		return "", nil, fmt.Errorf("turns %q: must be %s, %s or %s", f.Turns, sampling.TurnsCalls, sampling.TurnsNoCalls, sampling.TurnsAll)
	}
	// f.ExcludeSampled: the scan leaves out the items in a batch
	// (inBatch); items_sampling does not hold the status, so that a
	// batch or a label does not rewrite its entries.
	order := `i.ts_unix, i.trace_id, i.turn`
	if !withTS {
		order = `i.trace_id, i.turn`
	}
	// INDEXED BY: the covering index yields the rows already in order; left
	// to itself the planner may pick items_status and sort a million rows.
	// The input's key (input_hi, input_lo), not its hash: the reader
	// looks up the hash of a row whose key is 0 (readCandidateRows).
	q := with + `SELECT i.rowid, i.input_hi, i.input_lo, ` + stratum +
		` FROM items i INDEXED BY items_sampling` + join +
		` WHERE ` + strings.Join(where, ` AND `) + ` ORDER BY ` + order
	return q, args, nil
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
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := s.r.QueryContext(ctx, `SELECT id, input_hash FROM items WHERE id IN (?`+strings.Repeat(",?", len(part)-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id, h string
			if err := rows.Scan(&id, &h); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = h
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
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
