package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/store/sqlite"
	"github.com/goldtrace/goldtrace/trace"
)

// oddKeys are metadata keys that a JSON path built from them would misread.
var oddKeys = []string{"cohort", "model.name", `say "hi"`, "a b", "$[0]", "ключ", "<a>&b"}

// oldMetadata is the metadata of trace i of the migration fixture: keys
// and values vary, some traces have none, most values repeat.
func oldMetadata(i int) map[string]string {
	if i%7 == 0 {
		return nil
	}
	m := map[string]string{"cohort": []string{"billing", "shipping", "returns"}[i%3]}
	for k, key := range oddKeys[1:] {
		if (i+k)%(k+2) != 0 {
			m[key] = fmt.Sprintf(`v%d "%s".%d`, i%(k+2), key, k)
		}
	}
	if i%11 == 0 {
		m["user_id"] = fmt.Sprint("u_", i) // unique per trace
	}
	return m
}

// storeAtMigration14 builds a store at the schema before metasets, with
// traces stored as that schema stored them (metadata JSON on the trace, a
// trace_meta row per key) and gold answers for some of their items.
func storeAtMigration14(t *testing.T, path string, traces int) {
	t.Helper()
	ctx := context.Background()
	w, err := sqlite.ApplyMigrations(ctx, path, migrationsFS(t), func(v int) bool { return v <= 14 })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// The gold items were in a batch, as only a sampled item gets labels.
	exec(`INSERT INTO users(name, role, created_at) VALUES ('alice', 'reviewer', 'then')`)
	exec(`INSERT INTO batches(name, seed, per_item, created_at) VALUES ('b0', 1, 1, 'then')`)
	for i := range traces {
		id := fmt.Sprintf("tr_%03d", i)
		meta, err := json.Marshal(oldMetadata(i))
		if err != nil {
			t.Fatal(err)
		}
		if oldMetadata(i) == nil {
			meta = []byte("{}")
		}
		var ts any
		if i%5 != 0 {
			ts = int64(1_777_000_000 + i*60)
		}
		exec(`INSERT INTO traces(id, ts, ts_unix, content_hash, metadata, messages, source, imported_at)
			VALUES (?, '', ?, ?, ?, '[{"role":"user","content":"q"},{"role":"assistant","content":"a"}]', 'old.jsonl', 'then')`,
			id, ts, fmt.Sprintf("%064x", i), string(meta))
		for k, v := range oldMetadata(i) {
			exec(`INSERT INTO trace_meta(trace_id, key, value) VALUES (?, ?, ?)`, id, k, v)
		}
		for turn := 1; turn <= 2; turn++ {
			item := trace.ItemID(id, turn)
			gold := i%3 == 0 && turn == 1
			status := "new"
			if gold {
				status = "adjudicated"
			}
			exec(`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, ts_unix, status)
				VALUES (?, ?, ?, ?, '(none)', 0, ?, ?)`, item, id, turn, fmt.Sprintf("in%d", i*2+turn), ts, status)
			if gold {
				exec(`INSERT INTO gold(item_id, status, decision, adjudicator, updated_at) VALUES (?, 'adjudicated', 'no_call', 'carol', 'then')`, item)
				exec(`INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at) VALUES (?, 'alice', 'b0', ?, 'skipped', 'then')`, item, i)
			}
		}
	}
}

// metaAnswers is what the readers of trace metadata answer on one store.
type metaAnswers struct {
	Strata  map[string]map[int64]string // by key: item rowid → stratum
	Where   map[string][]int64          // by "key=value": item rowids
	Summary []MetaKeySummary
	Top2    []MetaKeySummary
	Gold    map[string][]string // by "key=value|value": gold item ids
	Keys    []string
	Has     map[string]bool
}

// whereCases are the --where and gold filter conditions the test asks.
func whereCases() [][2]string {
	var out [][2]string
	for i := range 12 {
		for k, v := range oldMetadata(i) {
			out = append(out, [2]string{k, v})
		}
	}
	return append(out, [2]string{"cohort", "nobody"}, [2]string{"missing key", "x"})
}

// oldAnswers asks the pre-migration store with the queries goldtrace ran
// on trace_meta.
func oldAnswers(t *testing.T, path string) metaAnswers {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows := func(q string, args ...any) [][2]string {
		t.Helper()
		r, err := db.QueryContext(ctx, q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		defer r.Close()
		var out [][2]string
		for r.Next() {
			var a, b string
			if err := r.Scan(&a, &b); err != nil {
				t.Fatal(err)
			}
			out = append(out, [2]string{a, b})
		}
		return out
	}
	a := metaAnswers{Strata: map[string]map[int64]string{}, Where: map[string][]int64{}, Gold: map[string][]string{}, Has: map[string]bool{}}
	for _, key := range append(slices.Clone(oddKeys), "user_id", "missing key") {
		a.Strata[key] = map[int64]string{}
		for _, r := range rows(`SELECT i.rowid, COALESCE(m.value, '`+sampling.NoMetaValue+`') FROM items i
			LEFT JOIN trace_meta m ON m.trace_id = i.trace_id AND m.key = ?`, key) {
			var row int64
			fmt.Sscan(r[0], &row)
			a.Strata[key][row] = r[1]
		}
		a.Has[key] = len(rows(`SELECT key, 1 FROM trace_meta WHERE key = ? LIMIT 1`, key)) > 0
	}
	for _, c := range whereCases() {
		a.Where[c[0]+"="+c[1]] = []int64{}
		for _, r := range rows(`SELECT i.rowid, '' FROM items i WHERE i.trace_id IN (SELECT trace_id FROM trace_meta WHERE key = ? AND value = ?) ORDER BY 1`, c[0], c[1]) {
			var row int64
			fmt.Sscan(r[0], &row)
			a.Where[c[0]+"="+c[1]] = append(a.Where[c[0]+"="+c[1]], row)
		}
		other := oldMetadata(3)[c[0]]
		a.Gold[c[0]+"="+c[1]+"|"+other] = []string{}
		for _, r := range rows(`SELECT g.item_id, '' FROM gold g JOIN items i ON i.id = g.item_id
			WHERE EXISTS (SELECT 1 FROM trace_meta m WHERE m.trace_id = i.trace_id AND m.key = ? AND m.value IN (?, ?)) ORDER BY 1`, c[0], c[1], other) {
			a.Gold[c[0]+"="+c[1]+"|"+other] = append(a.Gold[c[0]+"="+c[1]+"|"+other], r[0])
		}
	}
	for _, r := range rows(`SELECT DISTINCT key, '' FROM trace_meta ORDER BY 1`) {
		a.Keys = append(a.Keys, r[0])
	}
	for _, top := range []int{0, 2} {
		var sum []MetaKeySummary
		for _, r := range rows(`SELECT key, count(*) || ' ' || count(DISTINCT value) FROM trace_meta GROUP BY key ORDER BY key`) {
			k := MetaKeySummary{Key: r[0]}
			fmt.Sscan(r[1], &k.Traces, &k.Distinct)
			for _, v := range rows(`SELECT value, count(*) FROM trace_meta WHERE key = ? GROUP BY value ORDER BY count(*) DESC, value`, k.Key) {
				if top > 0 && len(k.Top) == top {
					break
				}
				c := Count{Value: v[0]}
				fmt.Sscan(v[1], &c.N)
				k.Top = append(k.Top, c)
			}
			sum = append(sum, k)
		}
		if top == 0 {
			a.Summary = sum
		} else {
			a.Top2 = sum
		}
	}
	return a
}

// newAnswers asks the migrated store through its methods.
func newAnswers(t *testing.T, st *Store) metaAnswers {
	t.Helper()
	ctx := context.Background()
	a := metaAnswers{Strata: map[string]map[int64]string{}, Where: map[string][]int64{}, Gold: map[string][]string{}, Has: map[string]bool{}}
	for _, key := range append(slices.Clone(oddKeys), "user_id", "missing key") {
		a.Strata[key] = scanRows(t, st, CandidateFilter{By: "meta." + key})
		var err error
		if a.Has[key], err = st.HasMetaKey(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range whereCases() {
		a.Where[c[0]+"="+c[1]] = []int64{}
		for row := range scanRows(t, st, CandidateFilter{Where: []sampling.Condition{{Key: "meta." + c[0], Value: c[1]}}}) {
			a.Where[c[0]+"="+c[1]] = append(a.Where[c[0]+"="+c[1]], row)
		}
		slices.Sort(a.Where[c[0]+"="+c[1]])
		other := oldMetadata(3)[c[0]]
		gold, err := st.GoldTraces(ctx, GoldFilter{Meta: map[string][]string{c[0]: {c[1], other}}})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, tg := range gold {
			for _, ans := range tg.Answers {
				ids = append(ids, ans.ItemID)
			}
		}
		slices.Sort(ids)
		a.Gold[c[0]+"="+c[1]+"|"+other] = ids
	}
	var err error
	if a.Keys, err = st.MetaKeys(ctx); err != nil {
		t.Fatal(err)
	}
	sum, err := st.TraceSummary(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	a.Summary = sum.Metadata
	if sum, err = st.TraceSummary(ctx, 2); err != nil {
		t.Fatal(err)
	}
	a.Top2 = sum.Metadata
	return a
}

// TestMigrationToMetasetsKeepsEveryAnswer builds a store at the schema
// before metasets, asks it what sampling by meta.NAME, --where, the traces
// summary, the gold filter and the key list answered there, migrates it,
// and asks the same through today's readers: the answers must not change.
// Keys hold dots, quotes, spaces and JSON-path syntax.
func TestMigrationToMetasetsKeepsEveryAnswer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	const traces = 60
	storeAtMigration14(t, path, traces)
	before := oldAnswers(t, path)
	if len(before.Where["cohort=billing"]) == 0 || len(before.Where["user_id=u_11"]) != 2 || len(before.Gold["cohort=returns|billing"]) == 0 ||
		!before.Has["a b"] || len(before.Summary) != len(oddKeys)+1 {
		t.Fatal("the fixture does not exercise the readers")
	}

	st, err := Open(ctx, path) // migrates
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	after := newAnswers(t, st)
	for _, part := range []struct {
		name      string
		old, then any
	}{
		{"strata", before.Strata, after.Strata},
		{"--where", before.Where, after.Where},
		{"summary", before.Summary, after.Summary},
		{"summary top 2", before.Top2, after.Top2},
		{"gold filter", before.Gold, after.Gold},
		{"keys", before.Keys, after.Keys},
		{"has key", before.Has, after.Has},
	} {
		if !reflect.DeepEqual(part.old, part.then) {
			t.Errorf("%s changed by the migration:\nbefore %v\nafter  %v", part.name, part.old, part.then)
		}
	}

	// Each trace reads back its metadata; each distinct object is stored once.
	distinct := map[string]bool{}
	for i := range traces {
		tr, err := st.Trace(ctx, fmt.Sprintf("tr_%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(tr.Metadata, oldMetadata(i)) {
			t.Errorf("trace %d metadata %v, want %v", i, tr.Metadata, oldMetadata(i))
		}
		if m := oldMetadata(i); m != nil {
			b, _ := json.Marshal(m)
			distinct[string(b)] = true
		}
	}
	if n := countRows(t, st, "metasets"); n != len(distinct) {
		t.Errorf("%d metasets, want %d (one per distinct object)", n, len(distinct))
	}
	problems, err := st.Check(ctx)
	if err != nil || len(problems) != 0 {
		t.Errorf("check after the migration: %v %v", problems, err)
	}
	var tables int
	if err := st.Reader().QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name IN ('trace_meta', 'trace_meta_kv')`).Scan(&tables); err != nil || tables != 0 {
		t.Errorf("trace_meta left behind: %d %v", tables, err)
	}

	// Imported after the migration, the same metadata finds its metaset.
	line := `{"id":"tr_new","metadata":` + string(mustJSON(t, oldMetadata(1))) + `,"messages":[{"role":"user","content":"new"},{"role":"assistant","content":"ok"}]}`
	res, _, err := importString(t, st, line+"\n", false)
	if err != nil || res.Items != 1 {
		t.Fatalf("import: %+v %v", res, err)
	}
	if n := countRows(t, st, "metasets"); n != len(distinct) {
		t.Errorf("%d metasets after importing known metadata, want %d", n, len(distinct))
	}
	where := "cohort=" + oldMetadata(1)["cohort"]
	if got, was := newAnswers(t, st).Where[where], before.Where[where]; len(got) != len(was)+1 {
		t.Errorf("--where %s after the import: %d items, want %d", where, len(got), len(was)+1)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oddValue is a value for key that encoding/json escapes (<, >, &).
func oddValue(key string) string { return `it's "` + key + `" <b>&amp;` }

// TestMetaKeysWithAnyCharacters imports traces whose keys and values hold
// characters a JSON path or a string-built query would misread, and asks
// every reader of metadata about them.
func TestMetaKeysWithAnyCharacters(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	var lines []string
	for i, key := range oddKeys {
		meta := map[string]string{key: oddValue(key), "n": fmt.Sprint(i % 2)}
		lines = append(lines, fmt.Sprintf(`{"id":"t%d","metadata":%s,"messages":[{"role":"user","content":"q%d"},{"role":"assistant","content":"a"}]}`, i, mustJSON(t, meta), i))
	}
	if _, _, err := importString(t, st, strings.Join(lines, "\n")+"\n", false); err != nil {
		t.Fatal(err)
	}
	keys, err := st.MetaKeys(ctx)
	want := append(slices.Clone(oddKeys), "n")
	slices.Sort(want)
	if err != nil || !slices.Equal(keys, want) {
		t.Errorf("keys %q, %v; want %q", keys, err, want)
	}
	for i, key := range oddKeys {
		rows := scanRows(t, st, CandidateFilter{Where: []sampling.Condition{{Key: "meta." + key, Value: oddValue(key)}}, By: "meta." + key})
		for _, stratum := range rows {
			if stratum != oddValue(key) {
				t.Errorf("key %q: stratum %q", key, stratum)
			}
		}
		if len(rows) != 1 {
			t.Errorf("key %q: --where matched %d items, want 1", key, len(rows))
		}
		tr, err := st.Trace(ctx, fmt.Sprintf("t%d", i))
		if err != nil || tr.Metadata[key] != oddValue(key) {
			t.Errorf("trace t%d metadata %v, %v", i, tr.Metadata, err)
		}
	}
	sum, err := st.TraceSummary(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range sum.Metadata {
		switch {
		case k.Key == "n" && (k.Traces != len(oddKeys) || k.Distinct != 2 || len(k.Top) != 1 || k.Top[0] != Count{"0", (len(oddKeys) + 1) / 2}):
			t.Errorf("summary of n: %+v", k)
		case k.Key != "n" && (k.Traces != 1 || k.Distinct != 1 || k.Top[0].Value != oddValue(k.Key)):
			t.Errorf("summary of %q: %+v", k.Key, k)
		}
	}
	if len(sum.Metadata) != len(want) {
		t.Errorf("summary has %d keys, want %d", len(sum.Metadata), len(want))
	}
}
