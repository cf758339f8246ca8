package store

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/bulk"
)

func insertVersion(t *testing.T, st *Store, v DatasetVersion, hashes map[string]string) error {
	t.Helper()
	ctx := context.Background()
	return st.writeDatasetVersion(ctx, v.Name, v.Version, hashes, rowOf(v, []byte(`{"name":"`+v.Name+`"}`), compressed(t, []byte("content "+v.SHA256+"\n"))), defaultBulkPace)
}

func TestDatasetVersionsRoundTripAndOrder(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	if _, err := st.LatestDatasetVersion(ctx, "d"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty: got %v, want ErrNotFound", err)
	}
	hashes := map[string]string{}
	for i := 0; i < 1234; i++ { // more than one multi-row INSERT
		hashes[fmt.Sprintf("it_%016x", i)] = fmt.Sprintf("h%d", i)
	}
	v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", CreatedBy: "carol", Message: "first", SHA256: "aa", Count: len(hashes), RecordFormat: 1}
	if err := insertVersion(t, st, v1, hashes); err != nil {
		t.Fatal(err)
	}
	v2 := v1
	v2.Version, v2.ParentVersion, v2.SHA256, v2.Message, v2.RecordFormat = 2, 1, "bb", "second", 2
	if err := insertVersion(t, st, v2, map[string]string{"it_0000000000000001": "x"}); err != nil {
		t.Fatal(err)
	}
	skip := v1
	skip.Version = 4
	if err := insertVersion(t, st, skip, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("v4 after v2: got %v, want ErrConflict", err)
	}
	again := v1
	if err := insertVersion(t, st, again, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("v1 again: got %v, want ErrConflict", err)
	}
	latest, err := st.LatestDatasetVersion(ctx, "d")
	if err != nil || latest != v2 {
		t.Fatalf("latest: %+v %v", latest, err)
	}
	all, err := st.DatasetVersions(ctx, "")
	if err != nil || len(all) != 2 || all[0] != v1 || all[1] != v2 {
		t.Fatalf("versions: %+v %v", all, err)
	}
	got, err := st.DatasetRecordHashes(ctx, "d", 1)
	if err != nil || len(got) != len(hashes) || got["it_00000000000004d1"] != "h1233" {
		t.Fatalf("hashes: %d %v", len(got), err)
	}
	v, content, manifest, err := st.DatasetFiles(ctx, "d", 2)
	if err != nil || v != v2 || string(content) != "content bb\n" || string(manifest) != `{"name":"d"}` {
		t.Fatalf("files: %+v %q %q %v", v, content, manifest, err)
	}
	if _, _, _, err := st.DatasetFiles(ctx, "d", 3); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing version: got %v, want ErrNotFound", err)
	}
}

func TestExportedVersionContentAndItemsCannotChange(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: "aa", Count: 1}
	if err := insertVersion(t, st, v1, map[string]string{"it_0000000000000001": "h"}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`UPDATE datasets SET content = x'00' WHERE name = 'd'`,
		`UPDATE datasets SET sha256 = 'bb'`,
		`DELETE FROM datasets WHERE version = 1`,
		`UPDATE dataset_items SET record_hash = 'other'`,
		`DELETE FROM dataset_items`,
		`INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ('d', 1, 'it_0000000000000002', 'h')`,
		`UPDATE dataset_parts SET data = x'00'`,
		`DELETE FROM dataset_parts`,
		`INSERT INTO dataset_parts(name, version, seq, data) VALUES ('d', 1, 99, x'00')`,
		`UPDATE datasets SET state = 'staging'`,
	} {
		err := st.WithTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q); return err })
		if !errors.Is(err, ErrImmutable) {
			t.Errorf("%s: got %v, want ErrImmutable", q, err)
		}
	}
	_, content, _, err := st.DatasetFiles(ctx, "d", 1)
	if err != nil || string(content) != "content aa\n" {
		t.Fatalf("content changed: %q %v", content, err)
	}
}

// A version is written in short transactions and seen by no reader until
// its last one: a failure removes everything it wrote, and a version left
// by a killed export is reported by check and removed by the next export.
func TestWriteDatasetVersionIsChunkedAndAllOrNothing(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	hashes := map[string]string{}
	for i := 0; i < 1234; i++ {
		hashes[fmt.Sprintf("it_%016x", i)] = fmt.Sprintf("h%d", i)
	}
	content := bytes.Repeat([]byte(`{"id":"it_0000000000000001","expected_tool":"refund"}`+"\n"), 9<<20/54) // 3 parts
	sum := sha256.Sum256(content)
	v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: hex.EncodeToString(sum[:]), Count: len(hashes)}
	raw := func() (n [3]int) {
		t.Helper()
		if err := st.r.QueryRow(`SELECT (SELECT count(*) FROM datasets), (SELECT count(*) FROM dataset_items),
			(SELECT count(*) FROM dataset_parts)`).Scan(&n[0], &n[1], &n[2]); err != nil {
			t.Fatal(err)
		}
		return n
	}
	txs := 0
	pace := bulkPace{Pace: bulk.Pace{ChunkTime: time.Nanosecond, Yield: time.Millisecond, Held: func(_, _ time.Duration) { txs++ }}}
	boom := errors.New("the files could not be written")
	err := st.writeDatasetVersion(ctx, "d", 1, hashes, func() (NewVersion, error) {
		if n := raw(); n[0] != 1 || n[1] != len(hashes) {
			t.Errorf("before the content: %v rows written, want the version and its items", n)
		}
		if vs, err := st.DatasetVersions(ctx, ""); err != nil || len(vs) != 0 {
			t.Errorf("a staging version is listed: %v %v", vs, err)
		}
		if _, err := st.LatestDatasetVersion(ctx, "d"); !errors.Is(err, ErrNotFound) {
			t.Errorf("a staging version is the latest: %v", err)
		}
		return NewVersion{}, boom
	}, pace)
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	if n := raw(); n != [3]int{} {
		t.Errorf("after a failed export: %v rows left (versions, items, parts)", n)
	}
	txs = 0
	if err := st.writeDatasetVersion(ctx, "d", 1, hashes, rowOf(v1, []byte(`{}`), compressed(t, content)), pace); err != nil {
		t.Fatal(err)
	}
	if want := len(hashes)/datasetItemsPerInsert + 1 + 3; txs < want {
		t.Errorf("%d transactions, want one per %d items and per content part (%d)", txs, datasetItemsPerInsert, want)
	}
	if _, got, _, err := st.DatasetFiles(ctx, "d", 1); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("content: %d bytes, %v", len(got), err)
	}
	r, err := st.DatasetContent(ctx, "d", 1)
	if err != nil {
		t.Fatal(err)
	}
	streamed, err := io.ReadAll(r)
	r.Close()
	if err != nil || !bytes.Equal(streamed, content) {
		t.Fatalf("streamed content: %d bytes, %v", len(streamed), err)
	}

	// A killed export's v2: hidden, reported once its heartbeat is old,
	// removed by the next export, which then writes v2.
	err = st.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, state, heartbeat_at)
			VALUES ('d', 2, 'x', '', 0, '', x'', 'staging', ?)`, st.heartbeat(st.Now().Add(-2*abandonedAfter))); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ('d', 2, 'it_1', 'h')`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	problems, err := st.Check(ctx)
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Detail, "d@v2 was left half-written") {
		t.Errorf("check: %v %v", problems, err)
	}
	v2 := v1
	v2.Version, v2.ParentVersion, v2.SHA256 = 2, 1, "bb"
	if err := insertVersion(t, st, v2, map[string]string{"it_2": "h"}); err != nil {
		t.Fatal(err)
	}
	if got, err := st.DatasetRecordHashes(ctx, "d", 2); err != nil || len(got) != 1 || got["it_2"] != "h" {
		t.Errorf("v2 items: %v %v", got, err)
	}
}

// A staging version whose writer process is gone is removed by the next
// export at once, before its heartbeat is old; one whose writer runs is
// left to it, and the next export is refused meanwhile.
func TestStagingVersionOfAGoneWriterIsRemovedAtOnce(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	st.Now = time.Now
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skipf("no process to outlive: %v", err)
	}
	host, _ := os.Hostname()
	stage := func(writer string) {
		t.Helper()
		err := st.WithTx(ctx, func(tx *Tx) error {
			_, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, state, heartbeat_at, writer)
				VALUES ('d', 1, 'x', '', 0, '', x'', 'staging', ?, ?)`, st.heartbeat(st.Now()), writer)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: "aa", Count: 1}
	stage(fmt.Sprintf("%s %d", host, os.Getpid()))
	if err := insertVersion(t, st, v1, map[string]string{"it_1": "h"}); !errors.Is(err, ErrConflict) {
		t.Fatalf("beside a running writer's staging v1: %v, want ErrConflict", err)
	}
	if err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE datasets SET writer = ? WHERE state = 'staging'`, fmt.Sprintf("%s %d", host, gone.Process.Pid))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := insertVersion(t, st, v1, map[string]string{"it_1": "h"}); err != nil {
		t.Fatalf("after the writer is gone: %v", err)
	}
}
