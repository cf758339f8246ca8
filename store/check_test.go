package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
)

// writeTestVersion writes version v of dataset d with the given stored
// gzip members (one dataset_parts row each), recording sum and count.
func writeTestVersion(t *testing.T, st *Store, v int, sum string, count int, hashes map[string]string, members [][]byte) {
	t.Helper()
	dv := DatasetVersion{Name: "d", Version: v, CreatedAt: "2026-05-01T12:00:00Z", SHA256: sum, Count: count, RecordFormat: 2}
	if v > 1 {
		dv.ParentVersion = v - 1
	}
	writeEncodedVersion(t, st, contentGzip, dv, hashes, members)
}

// writeEncodedVersion writes version dv of its dataset with stored parts
// members in encoding (gzip: as a goldtrace before zstd stored them).
func writeEncodedVersion(t *testing.T, st *Store, encoding string, dv DatasetVersion, hashes map[string]string, members [][]byte) {
	t.Helper()
	ctx := context.Background()
	rest := func() (NewVersion, error) {
		_, err := st.testW(t).ExecContext(ctx, `UPDATE datasets SET content_encoding = ? WHERE name = ? AND version = ? AND state = 'staging'`, encoding, dv.Name, dv.Version)
		return NewVersion{dv, []byte(`{"name":"d"}`), Compressed{members}}, err
	}
	if err := st.writeDatasetVersion(ctx, dv.Name, dv.Version, hashes, rest, defaultBulkPace); err != nil {
		t.Fatal(err)
	}
}

func gzipMember(t *testing.T, content []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(content); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func hexSHA256(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// check reports each kind of inconsistency it knows, one line each, in its
// order, on both engines: a store broken in one way per invariant (behind
// the store's back) gives exactly these lines.
func TestCheckReportsEachKindOfInconsistency(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, 10) // it_0, it_1 disputed; it_2…it_9 agreed; all submitted by alice and bob
		content := []byte("{\"id\":\"it_2\"}\n")
		writeTestVersion(t, st, 1, hexSHA256(content), 1, map[string]string{"it_2": "h"}, [][]byte{gzipMember(t, content)})
		writeTestVersion(t, st, 2, hexSHA256(content), 2, map[string]string{"it_2": "h"}, [][]byte{gzipMember(t, content)})
		writeTestVersion(t, st, 3, "ab", 1, map[string]string{"it_2": "h"}, [][]byte{gzipMember(t, content)})
		writeTestVersion(t, st, 4, hexSHA256(content), 1, map[string]string{"it_2": "h"}, [][]byte{[]byte("not gzip")})
		_, _, _, unreadable := st.DatasetFiles(ctx, "d", 4)
		if unreadable == nil {
			t.Fatal("DatasetFiles read a version stored as \"not gzip\"")
		}

		w := st.testW(t)
		old := st.heartbeat(st.Now().Add(-2 * abandonedAfter))
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`DELETE FROM labels WHERE item_id = 'it_2' AND reviewer = 'alice'`, nil},
			{`DELETE FROM gold WHERE item_id = 'it_3'`, nil},
			{`UPDATE gold SET reviewers = '["alice","dave"]' WHERE item_id = 'it_4'`, nil},
			{`UPDATE assignments SET status = 'skipped' WHERE item_id = 'it_5'`, nil},
			{`DELETE FROM labels WHERE item_id = 'it_5'`, nil},
			{`INSERT INTO drafts(item_id, reviewer, body, updated_at) VALUES ('it_6', 'alice', '{}', 'now')`, nil},
			{`INSERT INTO items(id, trace_id, turn, input_hash, first_tool, n_calls, status, in_batch, updated_at)
				VALUES ('it_lone', 'tr_bench', 900, 'h900', '', 0, 'disputed', 1, 'now'),
					('it_new', 'tr_bench', 901, 'h901', '', 0, 'new', 0, 'now'),
					('it_new2', 'tr_bench', 902, 'h902', '', 0, 'new', 0, 'now')`, nil},
			{`INSERT INTO assignments(item_id, reviewer, batch, position, status, updated_at) VALUES ('it_new', 'alice', 'b1', 900, 'pending', 'now')`, nil},
			{`INSERT INTO gold(item_id, status, decision, updated_at) VALUES ('it_new2', 'adjudicated', 'no_call', 'now')`, nil},
			{`INSERT INTO metasets(json) VALUES ('{"team":"x"}')`, nil},
			{`UPDATE items SET metaset = (SELECT id FROM metasets) WHERE id = 'it_9'`, nil},
			{`UPDATE items SET in_batch = 0 WHERE id = 'it_8'`, nil},
			{`INSERT INTO batches(name, seed, per_item, created_at, state, heartbeat_at) VALUES ('b9', 1, 1, 'now', 'writing', ?)`, []any{old}},
			{`INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, state, heartbeat_at)
				VALUES ('s', 1, 'x', '', 0, '', ?, 'staging', ?)`, []any{[]byte{}, old}},
			{`INSERT INTO traces(id, content_hash, messages, body, imported_at) VALUES ('tr_bad', 'hb', '', ?, 'now')`, []any{compressBody([]byte(`{not json`))}},
		} {
			if _, err := w.ExecContext(ctx, q.sql, q.args...); err != nil {
				t.Fatalf("%s: %v", q.sql, err)
			}
		}
		var metaset int
		if err := w.QueryRowContext(ctx, `SELECT id FROM metasets`).Scan(&metaset); err != nil {
			t.Fatal(err)
		}
		// A draft with no assignment: only a foreign key left off (SQLite)
		// or one put back unvalidated (PostgreSQL) lets it in.
		var first Problem
		if st.pg {
			var fk string
			if err := w.QueryRowContext(ctx, `SELECT conname FROM pg_constraint WHERE conrelid = 'drafts'::regclass AND contype = 'f'`).Scan(&fk); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{
				`ALTER TABLE drafts DROP CONSTRAINT ` + fk,
				`INSERT INTO drafts(item_id, reviewer, body, updated_at) VALUES ('it_7', 'carol', '{}', 'now')`,
				`ALTER TABLE drafts ADD CONSTRAINT drafts_assignment_fk FOREIGN KEY (item_id, reviewer) REFERENCES assignments(item_id, reviewer) NOT VALID`,
			} {
				if _, err := w.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			first = Problem{"constraint", "constraint drafts_assignment_fk on drafts is not validated"}
		} else {
			conn, err := w.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{`PRAGMA foreign_keys = OFF`,
				`INSERT INTO drafts(item_id, reviewer, body, updated_at) VALUES ('it_7', 'carol', '{}', 'now')`,
				`PRAGMA foreign_keys = ON`} {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			var rowid int
			if err := conn.QueryRowContext(ctx, `SELECT rowid FROM drafts WHERE item_id = 'it_7'`).Scan(&rowid); err != nil {
				t.Fatal(err)
			}
			conn.Close()
			first = Problem{"foreign_key", fmt.Sprintf("drafts row %d refers to a missing assignments row", rowid)}
		}

		want := []Problem{first,
			{"label", "assignment it_2 / alice is submitted but has no label"},
			{"gold", "item it_3 is agreed but has no gold answer"},
			{"gold", "gold answer of it_4 names reviewer dave, who has no label for it"},
			{"gold", "gold answer of it_5 has no source label"},
			{"draft", "draft of it_6 by alice is left on a submitted assignment"},
			{"draft", "draft of it_7 by carol has no assignment"},
			{"batch", "item it_lone is disputed but assigned to no one"},
			{"batch", "item it_new is new but assigned to alice in batch b1"},
			{"gold", "gold answer of it_new2 is of an item no batch holds"},
			{"metadata", fmt.Sprintf("item it_9 has metaset %d, its trace tr_bench has none", metaset)},
			{"batch", "item it_8 is agreed but has in_batch 0"},
			{"batch", "batch b9 was left half-written by a sample that did not finish (the next sample removes it)"},
			{"dataset", "dataset s@v1 was left half-written by an export that did not finish (the next export removes it)"},
			{"dataset", "dataset d@v2 has 1 records, its manifest counts 2"},
			{"dataset", fmt.Sprintf("dataset d@v3: content hashes to %s, recorded ab", hexSHA256(content)[:12])},
			{"dataset", fmt.Sprintf("dataset d@v4: its content cannot be read (%v)", st.wrap("", unreadable))},
			{"trace", "trace tr_bad: its stored body is not JSON"},
		}
		got, err := st.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("check found:\n%s\nwant:\n%s", problemLines(got), problemLines(want))
		}
	})
}

func problemLines(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "  %s: %s\n", p.Kind, p.Detail)
	}
	return b.String()
}

// Past maxProblemsPerKind lines, a step's findings are counted, not listed.
func TestCheckCountsWhatItDoesNotList(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		ctx := context.Background()
		statusFixture(t, st, maxProblemsPerKind+7)
		if _, err := st.testW(t).ExecContext(ctx, `UPDATE items SET in_batch = 0`); err != nil {
			t.Fatal(err)
		}
		got, err := st.Check(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != maxProblemsPerKind+1 || got[maxProblemsPerKind] != (Problem{"batch", "… and 7 more"}) {
			t.Fatalf("check found %d problems, the last %v; want %d and \"… and 7 more\"", len(got), got[len(got)-1], maxProblemsPerKind+1)
		}
		for _, p := range got[:maxProblemsPerKind] {
			if p.Kind != "batch" || !strings.HasSuffix(p.Detail, "but has in_batch 0") {
				t.Errorf("problem %v", p)
			}
		}
	})
}

// wordedApart is m damaged in one byte where klauspost's gzip decoder
// and compress/gzip report the damage differently (at another offset).
func wordedApart(t *testing.T, m []byte) []byte {
	t.Helper()
	read := func(r io.Reader, err error) string {
		if err == nil {
			_, err = io.Copy(io.Discard, r)
		}
		if err == nil {
			return "ok"
		}
		return err.Error()
	}
	for at := 10; at < len(m); at++ {
		d := bytes.Clone(m)
		d[at] ^= 1
		std, err := gzip.NewReader(bytes.NewReader(d))
		k, kerr := kgzip.NewReader(bytes.NewReader(d))
		if read(std, err) != read(k, kerr) {
			return d
		}
	}
	t.Fatal("no damage that the two decoders word apart")
	return nil
}

// check reads a version's content one stored part at a time; what it finds
// is what reading the whole version (DatasetFiles) finds, in the same
// words, however the stored gzip members are cut or damaged.
func TestCheckJudgesDatasetContentAsDatasetFilesReadsIt(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		content := checkedContent()
		half := len(content) / 2
		a, b := gzipMember(t, content[:half]), gzipMember(t, content[half:])
		whole := append(append([]byte{}, a...), b...)
		cases := []contentCase{
			{"two members", [][]byte{a, b}},
			{"a member cut across rows", [][]byte{whole[:len(a)/3], whole[len(a)/3 : len(a)+10], whole[len(a)+10:]}},
			{"an empty row between members", [][]byte{a, {}, b}},
			{"not gzip", [][]byte{[]byte("not gzip")}},
			{"second member truncated", [][]byte{a, b[:len(b)/2]}},
			{"first member truncated", [][]byte{a[:len(a)-4], b}},
			{"deflate data damaged", [][]byte{flipped(a, len(a)/2), b}},
			{"checksum damaged", [][]byte{a, flipped(b, len(b)-6)}},
			{"garbage after the last member", [][]byte{a, b, []byte("trailing")}},
			{"header damaged", [][]byte{flipped(a, 0), b}},
			{"damage the two gzip decoders word apart", [][]byte{a, wordedApart(t, b)}},
		}
		checkJudgesAsDatasetFiles(t, st, contentGzip, content, cases)
	})
}

// checkedContent is some 200 KB of JSON Lines for a version's content.
func checkedContent() []byte {
	var lines bytes.Buffer
	for i := 0; lines.Len() < 200<<10; i++ {
		fmt.Fprintf(&lines, `{"id":"it_%016x","expected_tool":"refund","n":%d}`+"\n", i, i*i)
	}
	return lines.Bytes()
}

// contentCase is a version's content stored as members (parts, in an
// encoding), and what it shows (name).
type contentCase struct {
	name    string
	members [][]byte
}

// flipped is m with the byte at at damaged.
func flipped(m []byte, at int) []byte {
	m = bytes.Clone(m)
	m[at] ^= 0x55
	return m
}

// checkJudgesAsDatasetFiles stores content as versions 1, 2, … of d, one
// for each case's parts in encoding, of which all but the first three are
// damaged, and has check find in them what DatasetFiles, which reads each
// whole, finds, in its words.
func checkJudgesAsDatasetFiles(t *testing.T, st *Store, encoding string, content []byte, cases []contentCase) {
	t.Helper()
	ctx := context.Background()
	for i, tc := range cases {
		dv := DatasetVersion{Name: "d", Version: i + 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: hexSHA256(content), RecordFormat: 2}
		if i > 0 {
			dv.ParentVersion = i
		}
		writeEncodedVersion(t, st, encoding, dv, nil, tc.members)
	}
	got, err := st.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var want []Problem
	for i := range cases {
		v := i + 1
		_, whole, _, err := st.DatasetFiles(ctx, "d", v)
		switch {
		case err != nil:
			want = append(want, Problem{"dataset", fmt.Sprintf("dataset d@v%d: its content cannot be read (%v)", v, st.wrap("", err))})
		case !bytes.Equal(whole, content):
			want = append(want, Problem{"dataset", fmt.Sprintf("dataset d@v%d: content hashes to %s, recorded %s", v, hexSHA256(whole)[:12], hexSHA256(content))})
		}
	}
	if len(want) != len(cases)-3 { // all but the first three
		t.Errorf("DatasetFiles read %d of the %d damaged versions", len(cases)-len(want), len(cases)-3)
	}
	if !slices.Equal(got, want) {
		t.Errorf("check found:\n%s\nwant (as DatasetFiles reads them):\n%s", problemLines(got), problemLines(want))
	}
}

// Versions an export writes now are zstd frames: check streams them, and
// judges and words a damaged one as DatasetFiles, which decodes it whole.
func TestCheckJudgesZstdContentAsDatasetFilesReadsIt(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		content := checkedContent()
		half := len(content) / 2
		a, b := compressed(t, content[:half]).members[0], compressed(t, content[half:]).members[0]
		whole := append(append([]byte{}, a...), b...)
		cases := []contentCase{
			{"two frames", [][]byte{a, b}},
			{"a frame cut across rows", [][]byte{whole[:len(a)/3], whole[len(a)/3 : len(a)+10], whole[len(a)+10:]}},
			{"an empty row between frames", [][]byte{a, {}, b}},
			{"not zstd", [][]byte{[]byte("not zstd")}},
			{"second frame truncated", [][]byte{a, b[:len(b)/2]}},
			{"first frame truncated", [][]byte{a[:len(a)-4], b}},
			{"data damaged", [][]byte{flipped(a, len(a)/2), b}},
			{"garbage after the last frame", [][]byte{a, b, []byte("trailing")}},
			{"magic damaged", [][]byte{flipped(a, 0), b}},
		}
		checkJudgesAsDatasetFiles(t, st, contentZstd, content, cases)
	})
}

// A check cut short is an error, never a shorter list of findings.
func TestCancelledCheckIsAnError(t *testing.T) {
	onEngines(t, func(t *testing.T, st *Store) {
		statusFixture(t, st, 4)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if p, err := st.Check(ctx); err == nil {
			t.Errorf("cancelled check: no error, found %v", p)
		}
	})
}
