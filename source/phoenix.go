package source

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace"
)

// Phoenix is the layout of Arize Phoenix's PostgreSQL database: its spans
// table, one row per OpenTelemetry span, OpenInference attributes in the
// attributes JSONB column (nested: {"llm":{"input_messages":[…]}}).
const Phoenix = "phoenix"

// IsPostgres says whether spec is a PostgreSQL connection URL.
func IsPostgres(spec string) bool {
	return strings.HasPrefix(spec, "postgres://") || strings.HasPrefix(spec, "postgresql://")
}

// RedactURL is spec without its password (in the user part or in the
// query), for messages and the batch's record.
func RedactURL(spec string) string {
	u, err := url.Parse(spec)
	if err != nil {
		return "postgres://…"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	q := u.Query()
	if q.Has("password") {
		q.Del("password")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// The Phoenix columns and expressions the first pass uses. The tool path
// is OpenInference's llm.output_messages.0.message.tool_calls.0.tool_call.
// function.name, nested as Phoenix stores it.
const (
	phoenixTool = `s.attributes #>> '{llm,output_messages,0,message,tool_calls,0,tool_call,function,name}'`
	phoenixKey  = `substr(sha256(convert_to($1::text || ':' || s.span_id, 'UTF8')), 1, 8)`
)

// phoenixTables are the tables and columns goldtrace reads; a database
// without them is not Phoenix's.
var phoenixTables = map[string][]string{
	"spans":  {"id", "trace_rowid", "span_id", "span_kind", "start_time", "attributes"},
	"traces": {"id", "trace_id"},
}

// samplePhoenix draws the sample inside PostgreSQL: one query computes the
// candidates (LLM spans passing the filter), their strata, the seeded key
// and each stratum's size, and returns only the ids of the candidates with
// the smallest keys per stratum; the spans' attributes are fetched for the
// rows the walk reaches (see choose), by row id. Both run in one read-only
// repeatable-read transaction: one snapshot.
func samplePhoenix(ctx context.Context, o Options) (Result, error) {
	name := RedactURL(o.Spec)
	if o.Format != "" && o.Format != Phoenix {
		return Result{}, fmt.Errorf("%s: a PostgreSQL source is Phoenix's (--format phoenix), not %s", name, o.Format)
	}
	conn, err := pgx.Connect(ctx, o.Spec)
	if err != nil {
		return Result{}, fmt.Errorf("%s: cannot connect: %s", name, pgMessage(err))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	tx, err := conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return Result{}, fmt.Errorf("%s: %s", name, pgMessage(err))
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := checkPhoenix(ctx, tx, name); err != nil {
		return Result{}, err
	}
	var snapshot time.Time
	if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&snapshot); err != nil {
		return Result{}, fmt.Errorf("%s: %s", name, pgMessage(err))
	}
	res := Result{Info: Info{URI: name, Layout: Phoenix,
		Files: []FileInfo{{Name: name, Version: "snapshot " + snapshot.UTC().Format(time.RFC3339Nano)}}}}
	excluded := excludedSet(o.Exclude)
	for k := holdFor(o.N); ; k *= 4 {
		pools, err := phoenixCandidates(ctx, tx, o, k, &res)
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", name, err)
		}
		ok, err := choose(ctx, o, pools, excluded, &res, func(cands []cand, items map[rowRef]trace.Item, traces map[rowRef]trace.Trace) error {
			return phoenixSpans(ctx, tx, name, cands, o.By, items, traces, &res.Info)
		})
		if err != nil {
			return Result{}, err
		}
		if ok {
			break
		}
	}
	res.Info.Files[0].Rows = res.Info.Calls
	return res, nil
}

// checkPhoenix names what the database lacks to be Phoenix's.
func checkPhoenix(ctx context.Context, tx pgx.Tx, name string) error {
	rows, err := tx.Query(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name IN ('spans', 'traces')`)
	if err != nil {
		return fmt.Errorf("%s: %s", name, pgMessage(err))
	}
	have := map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return fmt.Errorf("%s: %s", name, pgMessage(err))
		}
		have[t+"."+c] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %s", name, pgMessage(err))
	}
	for _, t := range []string{"spans", "traces"} {
		for _, c := range phoenixTables[t] {
			if !have[t+"."+c] {
				return fmt.Errorf("%s: not a Phoenix database: no column %s.%s", name, t, c)
			}
		}
	}
	return nil
}

// phoenixCandidates is the first pass, in SQL. It is long because it builds
// one query from every sampling option (stratum, filters, time range, turns)
// and reads its rows into the strata's pools in the same place, so that
// the SQL and the columns it scans stay side by side.
func phoenixCandidates(ctx context.Context, tx pgx.Tx, o Options, k int, res *Result) (map[string]*pool, error) {
	args := []any{strconv.FormatInt(o.Seed, 10), k}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	meta := func(key string) string {
		return `s.attributes #>> ARRAY['metadata', ` + arg(key) + `::text]`
	}
	stratum := `''`
	metaKey, byMeta := strings.CutPrefix(o.By, "meta.")
	switch {
	case o.By == "tool":
		stratum = `COALESCE(` + phoenixTool + `, '` + trace.NoTool + `')`
	case byMeta:
		stratum = `COALESCE(` + meta(metaKey) + `, '` + sampling.NoMetaValue + `')`
	}
	where := []string{`s.span_kind = 'LLM'`}
	for _, c := range o.Filter.Where {
		if c.Key == "tool" {
			where = append(where, `COALESCE(`+phoenixTool+`, '`+trace.NoTool+`') = `+arg(c.Value))
		} else {
			where = append(where, meta(strings.TrimPrefix(c.Key, "meta."))+` = `+arg(c.Value))
		}
	}
	if !o.Filter.Since.IsZero() {
		where = append(where, `s.start_time >= `+arg(o.Filter.Since))
	}
	if !o.Filter.Until.IsZero() {
		where = append(where, `s.start_time < `+arg(o.Filter.Until))
	}
	switch o.Filter.Turns {
	case sampling.TurnsCalls:
		where = append(where, phoenixTool+` IS NOT NULL`)
	case sampling.TurnsNoCalls:
		where = append(where, phoenixTool+` IS NULL`)
	}
	q := `WITH c AS (
		SELECT s.id, s.span_id, s.start_time, ` + stratum + ` AS stratum, ` + phoenixKey + ` AS k
		FROM spans s WHERE ` + strings.Join(where, " AND ") + `
	), r AS (
		SELECT c.*, row_number() OVER (PARTITION BY stratum ORDER BY k, span_id) AS rn,
			count(*) OVER (PARTITION BY stratum) AS available
		FROM c
	)
	SELECT id, span_id, start_time, stratum, k, available FROM r WHERE rn <= $2 ORDER BY stratum, rn`
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return nil, errors.New(pgMessage(err))
	}
	defer rows.Close()
	pools := map[string]*pool{}
	res.Info.Calls, res.Info.Candidates = 0, 0
	res.ByKeySeen = !byMeta
	for rows.Next() {
		var c cand
		var key []byte
		var available int
		if err := rows.Scan(&c.ref.row, &c.id, &c.ts, &c.stratum, &key, &available); err != nil {
			return nil, errors.New(pgMessage(err))
		}
		if len(key) != 8 {
			return nil, fmt.Errorf("span %s: key of %d bytes", c.id, len(key))
		}
		c.key = binary.BigEndian.Uint64(key)
		c.ts = c.ts.UTC()
		p := pools[c.stratum]
		if p == nil {
			p = &pool{available: available}
			pools[c.stratum] = p
			res.Info.Candidates += int64(available)
			res.ByKeySeen = res.ByKeySeen || c.stratum != sampling.NoMetaValue
		}
		p.items = append(p.items, c)
	}
	if err := rows.Err(); err != nil {
		return nil, errors.New(pgMessage(err))
	}
	res.Info.Calls = res.Info.Candidates
	res.Info.Rows = res.Info.Candidates
	return pools, nil
}

// phoenixSpans is the second pass: the attributes of the given spans only.
func phoenixSpans(ctx context.Context, tx pgx.Tx, name string, cands []cand, by string, items map[rowRef]trace.Item, traces map[rowRef]trace.Trace, info *Info) error {
	if len(cands) == 0 {
		return nil
	}
	ids := make([]int64, len(cands))
	byID := map[int64]cand{}
	for i, c := range cands {
		ids[i] = c.ref.row
		byID[c.ref.row] = c
	}
	rows, err := tx.Query(ctx, `SELECT s.id, t.trace_id, s.attributes::text FROM spans s
		JOIN traces t ON t.id = s.trace_rowid WHERE s.id = ANY($1)`, ids)
	if err != nil {
		return fmt.Errorf("%s: %s", name, pgMessage(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var traceID, attrs string
		if err := rows.Scan(&id, &traceID, &attrs); err != nil {
			return fmt.Errorf("%s: %s", name, pgMessage(err))
		}
		info.BytesRead += int64(len(attrs) + len(traceID))
		info.Requests++
		c := byID[id]
		what := fmt.Sprintf("%s: span %s (row %d)", name, c.id, id)
		t, err := decodeSpan(c, traceID, attrs)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if err := keepItem(c, t, by, "llm.output_messages' first tool call", what, items, traces); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %s", name, pgMessage(err))
	}
	return nil
}

// decodeSpan rebuilds an LLM span's conversation with trace's OpenInference
// reading (a Phoenix span export of it reads the same): input messages,
// then output messages, and the tools.
func decodeSpan(c cand, traceID, attrs string) (trace.Trace, error) {
	rec, err := json.Marshal(map[string]any{"trace_id": c.id, "start_time": c.ts.Format(time.RFC3339Nano),
		"attributes": json.RawMessage(attrs)})
	if err != nil {
		return trace.Trace{}, err
	}
	r, err := trace.NewReader(bytes.NewReader(rec), trace.FormatOpenInference)
	if err != nil {
		return trace.Trace{}, err
	}
	t, err := r.Next()
	if errors.Is(err, io.EOF) {
		return trace.Trace{}, errors.New("no model call")
	}
	var re *trace.RecordError
	if errors.As(err, &re) {
		err = re.Err
	}
	if err != nil {
		return trace.Trace{}, err
	}
	if len(t.Messages) == 0 || t.Messages[len(t.Messages)-1].Role != trace.RoleAssistant {
		return trace.Trace{}, errors.New("the output holds no assistant message")
	}
	t.ID = c.id
	if t.Metadata == nil {
		t.Metadata = map[string]string{}
	}
	t.Metadata["phoenix_trace_id"] = traceID
	if !c.ts.IsZero() {
		t.Timestamp = c.ts
	}
	return t, nil
}

// pgMessage is a PostgreSQL error on one line.
func pgMessage(err error) string {
	return oneLine(err)
}

// phoenixReader reads every LLM span of a Phoenix database as a trace, in
// row order, in one read-only snapshot, streaming the rows.
type phoenixReader struct {
	name string
	conn *pgx.Conn
	tx   pgx.Tx
	rows pgx.Rows
	read int64
}

func openPhoenix(ctx context.Context, spec, format string) (*phoenixReader, error) {
	name := RedactURL(spec)
	if format != "" && format != Phoenix {
		return nil, fmt.Errorf("%s: a PostgreSQL source is Phoenix's (--format phoenix), not %s", name, format)
	}
	conn, err := pgx.Connect(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot connect: %s", name, pgMessage(err))
	}
	r := &phoenixReader{name: name, conn: conn}
	fail := func(err error) (*phoenixReader, error) {
		r.Close()
		return nil, err
	}
	if r.tx, err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}); err != nil {
		return fail(fmt.Errorf("%s: %s", name, pgMessage(err)))
	}
	if err := checkPhoenix(ctx, r.tx, name); err != nil {
		return fail(err)
	}
	r.rows, err = r.tx.Query(ctx, `SELECT s.id, s.span_id, s.start_time, t.trace_id, s.attributes::text
		FROM spans s JOIN traces t ON t.id = s.trace_rowid WHERE s.span_kind = 'LLM' ORDER BY s.id`)
	if err != nil {
		return fail(fmt.Errorf("%s: %s", name, pgMessage(err)))
	}
	return r, nil
}

// Next implements trace.Reader.
func (r *phoenixReader) Next() (trace.Trace, error) {
	if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return trace.Trace{}, fmt.Errorf("%s: %s", r.name, pgMessage(err))
		}
		return trace.Trace{}, io.EOF
	}
	var c cand
	var traceID, attrs string
	if err := r.rows.Scan(&c.ref.row, &c.id, &c.ts, &traceID, &attrs); err != nil {
		return trace.Trace{}, fmt.Errorf("%s: %s", r.name, pgMessage(err))
	}
	r.read += int64(len(attrs))
	c.ts = c.ts.UTC()
	t, err := decodeSpan(c, traceID, attrs)
	if err != nil {
		return trace.Trace{}, fmt.Errorf("%s: span %s (row %d): %w", r.name, c.id, c.ref.row, err)
	}
	return t, nil
}

func (r *phoenixReader) Size() int64      { return 0 }
func (r *phoenixReader) BytesRead() int64 { return r.read }

// Close ends the snapshot and the connection.
func (r *phoenixReader) Close() error {
	ctx := context.Background()
	if r.rows != nil {
		r.rows.Close()
	}
	if r.tx != nil {
		r.tx.Rollback(ctx)
	}
	return r.conn.Close(ctx)
}
