package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
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
	rows, err := newRowEncoder().encode(t)
	if err != nil {
		return 0, err
	}
	rows.packWith(compressBody)
	w := &traceWriter{s: s, q: q}
	out, _, err := w.insert(ctx, rows, source)
	if err == nil {
		err = w.flush(ctx)
	}
	return out, err
}

// The statements InsertTrace runs; an import prepares them once per
// transaction.
const (
	// The content hash stored under the trace's id (NULL when none), and
	// whether its content is stored under any id. The hash comes in two
	// halves, never content_hash = ?: SQLite would propagate that constant
	// into substr(content_hash, 1, 16), which then no longer matches the
	// index traces_content_key.
	sqlTraceStored = `SELECT (SELECT content_hash FROM traces WHERE id = ?1),
		EXISTS (SELECT 1 FROM traces WHERE substr(content_hash, 1, 16) = ?2 AND substr(content_hash, 17) = ?3)`
	sqlTraceInsert = `INSERT INTO traces(id, ts, ts_unix, content_hash, metaset, messages, body, toolset, source, imported_at)
		VALUES (?, ?, ?, ?, ?, '', ?, ?, ?, ?)`
	sqlToolsetInsert = `INSERT INTO toolsets(hashes) VALUES (?) ON CONFLICT(hashes) DO NOTHING RETURNING id`
	sqlToolsetID     = `SELECT id FROM toolsets WHERE hashes = ?`
	sqlToolInsert    = `INSERT INTO tools(hash, name, description, parameters) VALUES (?, ?, ?, ?)
			ON CONFLICT(hash) DO NOTHING`
	sqlMetasetInsert = `INSERT INTO metasets(json) VALUES (?) ON CONFLICT(json) DO NOTHING RETURNING id`
	sqlMetasetID     = `SELECT id FROM metasets WHERE json = ?`
	sqlItemInsert    = `INSERT INTO items(id, trace_id, turn, input_hash, input_hi, input_lo, observed, first_tool, n_calls, ts_unix, metaset)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
)

// rowsPerInsert is how many trace or item rows one INSERT writes:
// an import buffers them across the traces of a chunk, so that a
// statement's fixed cost is paid once per rowsPerInsert rows, not once per
// row.
const rowsPerInsert = 32

// The parameters of one row of sqlTraceInsert and sqlItemInsert.
const (
	traceCols = 9
	itemCols  = 11
)

// pgRowsPerInsert is rowsPerInsert on PostgreSQL, where every statement
// is a round trip to the server: fewer, larger ones.
const pgRowsPerInsert = 256

var (
	sqlTraceInsertMany   = multiRowInsert(sqlTraceInsert, rowsPerInsert)
	sqlItemInsertMany    = multiRowInsert(sqlItemInsert, rowsPerInsert)
	sqlTraceInsertManyPG = multiRowInsert(sqlTraceInsert, pgRowsPerInsert)
	sqlItemInsertManyPG  = multiRowInsert(sqlItemInsert, pgRowsPerInsert)
)

// perInsert is how many rows one INSERT of the writer writes, and the
// statements that write that many traces and items.
func (w *traceWriter) perInsert() (n int, traces, items string) {
	if w.s.pg {
		return pgRowsPerInsert, sqlTraceInsertManyPG, sqlItemInsertManyPG
	}
	return rowsPerInsert, sqlTraceInsertMany, sqlItemInsertMany
}

// multiRowInsert repeats the VALUES tuple of insert (its last clause) n
// times.
func multiRowInsert(insert string, n int) string {
	at := strings.Index(insert, "VALUES") + len("VALUES")
	tuple := strings.TrimSpace(insert[at:])
	return insert[:at] + " " + tuple + strings.Repeat(", "+tuple, n-1)
}

var writerStatements = []string{sqlTraceStored, sqlTraceInsert, sqlToolInsert,
	sqlToolsetInsert, sqlToolsetID, sqlMetasetID, sqlMetasetInsert, sqlItemInsert, sqlTraceInsertMany, sqlItemInsertMany, sqlImportProgress}

// sqliteWriterStatements are writerStatements and, on SQLite, where they
// are prepared once for a whole import (writeCache.prepareOnce), the
// look-ahead's two queries; PostgreSQL's driver caches the statements it
// runs, and a chunk's own preparing would cost it a round trip each.
var sqliteWriterStatements = append(slices.Clip(writerStatements), sqlLookAheadIDs, sqlLookAheadHashes)

// writerStatements are the statements a writer prepares.
func (s *Store) writerStatements() []string {
	if s.pg {
		return writerStatements
	}
	return sqliteWriterStatements
}

// traceRows is one trace encoded as the column values InsertTrace writes,
// computed without touching the database. An import computes them on its
// reading side and hands them to its writer (see ImportTraces).
type traceRows struct {
	id, hash string
	ts       string
	tsUnix   any    // int64, or nil when the trace has no timestamp
	meta     string // the metadata's canonical JSON object, "" when none
	toolset  string // JSON array of the tool hashes, "" when no tools
	tools    []toolRow
	body     []byte // the JSON array of messages, zstd-compressed
	// messages is that array while it is not compressed yet (body nil).
	messages []byte
	items    []itemRow
}

// packWith sets r's body to pack(messages) unless it is set; pack may
// return nil (not yet).
func (r *traceRows) packWith(pack func(messages []byte) []byte) {
	if r.body != nil || r.messages == nil {
		return
	}
	if r.body = pack(r.messages); r.body != nil {
		r.messages = nil
	}
}

type toolRow struct{ hash, name, description, parameters string }

// size is about how much memory r holds (its tools are shared with other
// traces' rows and not counted).
func (r *traceRows) size() int {
	n := 256 + len(r.body) + len(r.messages) + len(r.meta) + 2*len(r.toolset)
	for _, it := range r.items {
		n += 128 + len(it.observed)
	}
	return n
}

type itemRow struct {
	id, inputHash, firstTool, observed string
	turn, nCalls                       int
}

// traceWriter inserts traces through q, using prepared statements when it
// has them (see prepareWriter).
type traceWriter struct {
	s        *Store
	q        Queryer
	prepared map[string]*sql.Stmt
	// toolsSeen remembers tool hashes already written (nil: none are).
	toolsSeen map[string]bool
	// toolsets and metasets remember the ids of tool lists and metadata
	// objects (nil: none are known).
	toolsets, metasets map[string]int64
	// traceArgs and itemArgs hold the parameters of the rows not written
	// yet (see flush). inserted maps the ids of the traces this writer has
	// inserted (written or not) to their content hashes, and insertedHash
	// the other way, so that insert sees them without a query.
	traceArgs, itemArgs []any
	inserted            map[string]string
	insertedHash        map[string]bool
	// ahead is what lookAhead found stored, for the ids it looked up.
	ahead lookedUp
}

// lookedUp is what lookAhead found about traces about to be inserted.
type lookedUp struct {
	looked map[string]bool   // the ids looked up
	stored map[string]string // of those, the stored ones' content hashes
	same   map[string]bool   // content hashes stored (under any id)
}

// prepareWriter prepares the insert statements on tx; close releases them.
// cache holds the tool hashes, tool lists and metadata objects known to be
// stored; the writer adds to it.
func (s *Store) prepareWriter(ctx context.Context, tx *Tx, cache *writeCache) (*traceWriter, error) {
	w := &traceWriter{s: s, q: tx, prepared: map[string]*sql.Stmt{}, toolsSeen: cache.tools, toolsets: cache.toolsets, metasets: cache.metasets}
	for _, q := range s.writerStatements() {
		if once, ok := cache.stmts[q]; ok {
			w.prepared[q] = tx.StmtContext(ctx, once)
			continue
		}
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

func (w *traceWriter) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st, ok := w.prepared[query]; ok {
		return st.QueryContext(ctx, args...)
	}
	return w.q.QueryContext(ctx, query, args...)
}

func (w *traceWriter) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	if st, ok := w.prepared[query]; ok {
		return st.QueryRowContext(ctx, args...)
	}
	return w.q.QueryRowContext(ctx, query, args...)
}

// errStoredDifferently is insert's ErrConflict: the trace id is stored with
// other content. It is returned before anything of the trace is written.
var errStoredDifferently = errors.New("is already stored with different content")

// insert stores one trace and returns what it did and how many items it
// created.
func (w *traceWriter) insert(ctx context.Context, r traceRows, source string) (InsertOutcome, int, error) {
	if h, ok := w.inserted[r.id]; ok {
		if h == r.hash {
			return DuplicateID, 0, nil
		}
		return 0, 0, fmt.Errorf("%w: trace %q %w", ErrConflict, r.id, errStoredDifferently)
	}
	// An id stored with other content is a conflict even when this writer
	// has just inserted the same content under another id: the stored id
	// is checked first, as sqlTraceStored's answer is.
	var stored sql.NullString
	var sameContent bool
	if w.ahead.looked[r.id] {
		// Looked up in this transaction, and this writer has inserted
		// nothing under this id since: still true (content it inserted
		// since, insertedHash has).
		h, ok := w.ahead.stored[r.id]
		stored = sql.NullString{String: h, Valid: ok}
		sameContent = w.ahead.same[r.hash]
	} else {
		cut := min(16, len(r.hash))
		if err := w.queryRow(ctx, sqlTraceStored, r.id, r.hash[:cut], r.hash[cut:]).Scan(&stored, &sameContent); err != nil {
			return 0, 0, err
		}
	}
	switch {
	case stored.Valid && stored.String == r.hash:
		return DuplicateID, 0, nil
	case stored.Valid:
		return 0, 0, fmt.Errorf("%w: trace %q %w", ErrConflict, r.id, errStoredDifferently)
	case sameContent || w.insertedHash[r.hash]:
		return DuplicateContent, 0, nil
	}

	for _, tool := range r.tools {
		if !w.toolsSeen[tool.hash] {
			if err := w.exec(ctx, sqlToolInsert, tool.hash, tool.name, tool.description, tool.parameters); err != nil {
				return 0, 0, err
			}
			if w.toolsSeen != nil {
				w.toolsSeen[tool.hash] = true
			}
		}
	}
	// A log's traces mostly share a few tool lists and metadata objects;
	// one with an object per trace (a user id in each) pays an insert per
	// trace, in place of a metadata row and an index entry per key.
	toolset, err := w.rowID(ctx, w.toolsets, r.toolset, sqlToolsetInsert, sqlToolsetID)
	if err != nil {
		return 0, 0, err
	}
	metaset, err := w.rowID(ctx, w.metasets, r.meta, sqlMetasetInsert, sqlMetasetID)
	if err != nil {
		return 0, 0, err
	}
	w.traceArgs = append(w.traceArgs, r.id, r.ts, r.tsUnix, r.hash, metaset, r.body, toolset, source, w.s.now())
	if w.inserted == nil {
		w.inserted, w.insertedHash = map[string]string{}, map[string]bool{}
	}
	w.inserted[r.id], w.insertedHash[r.hash] = r.hash, true
	for _, it := range r.items {
		hi, lo := inputKeys(it.inputHash)
		w.itemArgs = append(w.itemArgs, it.id, r.id, it.turn, it.inputHash, hi, lo, it.observed, it.firstTool, it.nCalls, r.tsUnix, metaset)
	}
	if per, _, _ := w.perInsert(); len(w.traceArgs) >= traceCols*per || len(w.itemArgs) >= itemCols*per {
		if err := w.flush(ctx); err != nil {
			return 0, 0, err
		}
	}
	return Inserted, len(r.items), nil
}

// flush writes the buffered rows, traces first (the others refer to them):
// rowsPerInsert at a time, the rest one by one.
func (w *traceWriter) flush(ctx context.Context) error {
	per, traces, items := w.perInsert()
	for _, b := range []struct {
		args      *[]any
		cols      int
		one, many string
	}{
		{&w.traceArgs, traceCols, sqlTraceInsert, traces},
		{&w.itemArgs, itemCols, sqlItemInsert, items},
	} {
		args := *b.args
		for len(args) > 0 {
			n, query := b.cols, b.one
			switch {
			case len(args) >= b.cols*per:
				n, query = b.cols*per, b.many
			case w.s.pg && len(args) > b.cols:
				// The rest in one statement too: a round trip each
				// would cost more than a statement text of its own.
				n, query = len(args), multiRowInsert(b.one, len(args)/b.cols)
			}
			if err := w.exec(ctx, query, args[:n]...); err != nil {
				return classify(err)
			}
			args = args[n:]
		}
		clear(*b.args)
		*b.args = (*b.args)[:0]
	}
	return nil
}

// rowID returns the id (an int64) of the row of a table of distinct values
// (toolsets: tool hash lists, metasets: metadata objects) that holds
// value, storing it if new, or nil for "" (no tools, no metadata). It
// comes from cache (nil: none) or the database: insert adds the row and
// returns its id, or returns no row when it is stored already, and lookup
// then finds it. Such rows are never deleted, so what
// cache learnt in committed transactions stays true; an import stops at
// its first failed transaction, so it never reuses an id one rolled back.
func (w *traceWriter) rowID(ctx context.Context, cache map[string]int64, value, insert, lookup string) (any, error) {
	if value == "" {
		return nil, nil
	}
	if id, ok := cache[value]; ok {
		return id, nil
	}
	var id int64
	err := w.queryRow(ctx, insert, value).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = w.queryRow(ctx, lookup, value).Scan(&id)
	}
	if err != nil {
		return nil, err
	}
	if cache != nil {
		if len(cache) >= 4096 {
			clear(cache)
		}
		cache[value] = id
	}
	return id, nil
}

// writeCache is what an import's writer remembers across its chunks: the
// tools, tool lists and metadata objects known to be stored.
type writeCache struct {
	tools              map[string]bool
	toolsets, metasets map[string]int64
	// stmts are the writer's statements prepared once for the whole import
	// (writePreparer), by query; nil when the engine prepares per
	// transaction.
	stmts map[string]*sql.Stmt
}

func newWriteCache() *writeCache {
	return &writeCache{tools: map[string]bool{}, toolsets: map[string]int64{}, metasets: map[string]int64{}}
}

// writePreparer is an engine that can prepare a statement once for many
// write transactions (SQLite, whose writes share one connection).
type writePreparer interface {
	PrepareWrite(ctx context.Context, query string) (*sql.Stmt, error)
}

// prepareOnce prepares the writer's statements for all of an import's
// chunks when the engine can: an import of 100 MB writes in hundreds of
// chunks, and preparing the statements for each (the multi-row inserts
// are long) took a tenth of the writer's time. Without it, or when it
// fails, each chunk prepares its own (prepareWriter). close releases them.
func (c *writeCache) prepareOnce(ctx context.Context, eng any) {
	wp, ok := eng.(writePreparer)
	if !ok {
		return
	}
	stmts := make(map[string]*sql.Stmt, len(sqliteWriterStatements))
	for _, q := range sqliteWriterStatements {
		st, err := wp.PrepareWrite(ctx, q)
		if err != nil {
			for _, st := range stmts {
				st.Close()
			}
			return
		}
		stmts[q] = st
	}
	c.stmts = stmts
}

func (c *writeCache) close() {
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
}

func timestampColumns(ts time.Time) (string, any) {
	if ts.IsZero() {
		return "", nil
	}
	return ts.UTC().Format(time.RFC3339Nano), ts.Unix()
}

// sqlTraceMetadata is the metadata JSON object of trace t.
const sqlTraceMetadata = `COALESCE((SELECT m.json FROM metasets m WHERE m.id = t.metaset), '{}')`

// Trace loads one stored trace.
func (s *Store) Trace(ctx context.Context, id string) (trace.Trace, error) {
	var r traceRow
	err := r.scan(s.r.QueryRowContext(ctx, traceRowQuery+`t.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Trace{}, fmt.Errorf("trace %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return trace.Trace{}, err
	}
	t, err := s.traceOf(ctx, id, r)
	if err != nil {
		return t.Trace, err
	}
	rows, err := s.r.QueryContext(ctx, traceToolsQuery+`tt.trace_id = ? ORDER BY tt.position`, id)
	if err != nil {
		return t.Trace, err
	}
	defer rows.Close()
	for rows.Next() {
		if err := t.scanTool(rows); err != nil {
			return t.Trace, err
		}
	}
	return t.Trace, rows.Err()
}

// traceRowQuery and traceToolsQuery select a trace's row (traceRow) and
// its tools (scanTool), given the WHERE clause that picks the trace.
const (
	traceRowQuery   = `SELECT t.id, t.ts, ` + sqlTraceMetadata + `, t.messages, t.body FROM traces t WHERE `
	traceToolsQuery = `SELECT t.name, t.description, t.parameters FROM trace_tools tt JOIN tools t ON t.hash = tt.tool_hash WHERE `
)

// traceRow is a trace's row as traceRowQuery selects it.
type traceRow struct {
	id, ts, meta string
	msgs, body   []byte
}

func (r *traceRow) scan(row scanner) error { return row.Scan(&r.id, &r.ts, &r.meta, &r.msgs, &r.body) }

// tracing is a trace being read: its row decoded, its tools to come.
type tracing struct{ trace.Trace }

// traceOf decodes the row of trace id (without its tools).
func (s *Store) traceOf(ctx context.Context, id string, r traceRow) (tracing, error) {
	t := tracing{trace.Trace{ID: r.id, Tools: []trace.Tool{}}}
	var err error
	if r.ts != "" {
		if t.Timestamp, err = time.Parse(time.RFC3339Nano, r.ts); err != nil {
			return t, fmt.Errorf("trace %q: bad stored timestamp: %w", id, err)
		}
	}
	if err := json.Unmarshal([]byte(r.meta), &t.Metadata); err != nil {
		return t, fmt.Errorf("trace %q: metadata: %w", id, err)
	}
	if len(t.Metadata) == 0 {
		t.Metadata = nil
	}
	msgs, err := s.traceMessagesJSON(ctx, r.msgs, r.body)
	if err != nil {
		return t, fmt.Errorf("trace %q: %w", id, err)
	}
	if err := json.Unmarshal(msgs, &t.Messages); err != nil {
		return t, fmt.Errorf("trace %q: messages: %w", id, err)
	}
	return t, nil
}

// scanTool adds the tool of a row selected by traceToolsQuery.
func (t *tracing) scanTool(r scanner) error {
	var tool trace.Tool
	var params string
	if err := r.Scan(&tool.Name, &tool.Description, &params); err != nil {
		return err
	}
	if params != "" {
		tool.Parameters = json.RawMessage(params)
	}
	t.Tools = append(t.Tools, tool)
	return nil
}

// Item loads one decision point with its context, tools and observed calls.
// Its tools are its trace's, or the catalogue it was put back against
// (ReviewAgain with StaleBatch.Tools).
func (s *Store) Item(ctx context.Context, id string) (trace.Item, error) {
	var r itemKey
	err := r.scan(s.r.QueryRowContext(ctx, itemKeyQuery, id))
	if errors.Is(err, sql.ErrNoRows) {
		return trace.Item{}, fmt.Errorf("item %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return trace.Item{}, err
	}
	t, err := s.Trace(ctx, r.traceID)
	if err != nil {
		return trace.Item{}, err
	}
	return s.itemOf(ctx, id, r, t)
}

// itemKeyQuery selects an item's trace and turn (itemKey).
const itemKeyQuery = itemKeySelect + `?`

// itemKeySelect is itemKeyQuery up to the item it selects.
const itemKeySelect = `SELECT trace_id, turn, coalesce(toolset, 0) FROM items WHERE id = `

// itemKey is an item's row as itemKeyQuery selects it.
type itemKey struct {
	traceID string
	turn    int
	toolset int64
}

func (r *itemKey) scan(row scanner) error { return row.Scan(&r.traceID, &r.turn, &r.toolset) }

// itemOf is item id of its trace t.
func (s *Store) itemOf(ctx context.Context, id string, r itemKey, t trace.Trace) (trace.Item, error) {
	var err error
	for _, it := range trace.Items(t) {
		if it.Turn == r.turn {
			if r.toolset != 0 {
				// Put back against a newer catalogue (sample --stale --tools).
				if it.Tools, err = toolsetTools(ctx, s.r, r.toolset); err != nil {
					return trace.Item{}, fmt.Errorf("item %q: its catalogue: %w", id, err)
				}
			}
			return it, nil
		}
	}
	return trace.Item{}, fmt.Errorf("item %q: turn %d missing from trace %q: %w", id, r.turn, r.traceID, ErrNotFound)
}

// lookAheadRows is how many traces lookAhead looks up at once.
const lookAheadRows = 64

// pgLookAheadRows is lookAheadRows on PostgreSQL, where each query is a
// round trip to the server.
const pgLookAheadRows = 256

func (s *Store) lookAheadRows() int {
	if s.pg {
		return pgLookAheadRows
	}
	return lookAheadRows
}

// prefetchMetasets stores, on PostgreSQL, the metadata objects of recs
// that the writer does not know and whose traces lookAhead found new, and
// learns their ids, in two statements: a log whose traces each carry an
// object of their own (a user id) otherwise pays a round trip per trace.
// On SQLite, where a statement costs no round trip, rowID does it trace
// by trace.
func (w *traceWriter) prefetchMetasets(ctx context.Context, recs []encodedRecord) error {
	if !w.s.pg || w.metasets == nil {
		return nil
	}
	var want []any
	seen := map[string]bool{}
	for _, r := range recs {
		m := r.rows.meta
		if r.err != nil || m == "" || seen[m] || w.ahead.same[r.rows.hash] {
			continue
		}
		if _, ok := w.metasets[m]; ok {
			continue
		}
		if _, stored := w.ahead.stored[r.rows.id]; stored {
			continue
		}
		seen[m] = true
		want = append(want, m)
	}
	if len(want) == 0 {
		return nil
	}
	if _, err := w.q.ExecContext(ctx, `INSERT INTO metasets(json) VALUES (?`+strings.Repeat("), (?", len(want)-1)+`) ON CONFLICT(json) DO NOTHING`, want...); err != nil {
		return err
	}
	rows, err := w.q.QueryContext(ctx, `SELECT id, json FROM metasets WHERE json IN (?`+strings.Repeat(", ?", len(want)-1)+`)`, want...)
	if err != nil {
		return err
	}
	defer rows.Close()
	if len(w.metasets)+len(want) > 4096 {
		clear(w.metasets)
	}
	for rows.Next() {
		var id int64
		var m string
		if err := rows.Scan(&id, &m); err != nil {
			return err
		}
		w.metasets[m] = id
	}
	return rows.Err()
}

// The two queries of lookAhead, for lookAheadRows (and pgLookAheadRows)
// keys: prepared once with the writer's other statements, the keys of a
// shorter look-ahead padded with NULL (which matches nothing). Parsing and
// planning them anew for every 64 traces cost a writer more than running
// them.
var (
	sqlLookAheadIDs      = lookAheadIDs(lookAheadRows)
	sqlLookAheadHashes   = lookAheadHashes(lookAheadRows)
	sqlLookAheadIDsPG    = lookAheadIDs(pgLookAheadRows)
	sqlLookAheadHashesPG = lookAheadHashes(pgLookAheadRows)
)

func lookAheadIDs(n int) string {
	return `SELECT id, content_hash FROM traces WHERE id IN (?` + strings.Repeat(",?", n-1) + `)`
}

func lookAheadHashes(n int) string {
	return `SELECT content_hash FROM traces WHERE substr(content_hash, 1, 16) IN (?` + strings.Repeat(",?", n-1) + `)`
}

// lookAhead looks up, in two queries, which of these traces (ids and
// content hashes, in pairs, lookAheadRows at most) are stored, for the
// inserts that follow in the same transaction: one query per trace cost an
// import's writer a tenth of its time.
func (w *traceWriter) lookAhead(ctx context.Context, ids, hashes []string) error {
	w.ahead = lookedUp{looked: make(map[string]bool, len(ids)), stored: map[string]string{}, same: map[string]bool{}}
	if len(ids) == 0 {
		return nil
	}
	byID, byHash, n := sqlLookAheadIDs, sqlLookAheadHashes, lookAheadRows
	if w.s.pg {
		byID, byHash, n = sqlLookAheadIDsPG, sqlLookAheadHashesPG, pgLookAheadRows
	}
	if len(ids) > n {
		return fmt.Errorf("look ahead: %d traces, more than %d", len(ids), n)
	}
	args := make([]any, n) // the rest NULL
	for i, id := range ids {
		args[i] = id
		w.ahead.looked[id] = true
	}
	rows, err := w.query(ctx, byID, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, h string
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return err
		}
		w.ahead.stored[id] = h
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	clear(args)
	for i, h := range hashes {
		args[i] = h[:min(16, len(h))]
	}
	rows, err = w.query(ctx, byHash, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return err
		}
		w.ahead.same[h] = true
	}
	return rows.Err()
}
