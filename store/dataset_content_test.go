package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/goldtrace/goldtrace/store/sqlite"
)

func TestCompressedContentGivesBackTheExactBytes(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	noise := make([]byte, contentChunkSize+12345)
	rng.Read(noise)
	var lines bytes.Buffer
	for i := 0; lines.Len() < 2*contentChunkSize+7; i++ {
		fmt.Fprintf(&lines, `{"id":"it_%016x","expected_tool":"refund"}`+"\n", i)
	}
	for _, tc := range []struct {
		name    string
		content []byte
	}{
		{"empty", []byte{}},
		{"one line", []byte("{\"id\":\"it_1\"}\n")},
		{"exactly one chunk", bytes.Repeat([]byte("a"), contentChunkSize)},
		{"several chunks of lines", lines.Bytes()},
		{"incompressible", noise},
	} {
		t.Run(tc.name, func(t *testing.T) {
			members, err := compressContent(bytesParts(tc.content))
			if err != nil {
				t.Fatal(err)
			}
			blob := bytes.Join(members, nil)
			got, err := decodeContent(contentZstd, blob)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.content) {
				t.Fatalf("round trip changed the bytes: %d in, %d out", len(tc.content), len(got))
			}
			// The streaming reader (DatasetContent's) reads the frames as
			// one stream too.
			zr, err := newZstdReader(bytes.NewReader(blob))
			if err != nil {
				t.Fatal(err)
			}
			plain, err := io.ReadAll(zr)
			zr.Close()
			if err != nil || !bytes.Equal(plain, tc.content) {
				t.Fatalf("streaming zstd reader: %d bytes, %v", len(plain), err)
			}
		})
	}
	if _, err := decodeContent(contentZstd, []byte("not zstd")); err == nil {
		t.Error("corrupt zstd content: no error")
	}
	if _, err := decodeContent(contentGzip, []byte("not gzip")); err == nil {
		t.Error("corrupt gzip content: no error")
	}
	if _, err := decodeContent("brotli", []byte("x")); err == nil {
		t.Error("unknown encoding: no error")
	}
}

// A version an older goldtrace stored as gzip members (one per
// dataset_parts row) reads back exactly, whole and streamed.
func TestVersionsStoredAsGzipStillRead(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	var lines bytes.Buffer
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&lines, `{"id":"it_%016x","expected_tool":"refund"}`+"\n", i)
	}
	content := lines.Bytes()
	var members [][]byte
	for _, part := range [][]byte{content[:len(content)/3], content[len(content)/3:]} {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		zw.Write(part)
		zw.Close()
		members = append(members, b.Bytes())
	}
	err := st.WithTx(ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, content_encoding, state)
			VALUES ('old', 1, '2026-05-01T12:00:00Z', 'aa', 3000, '{}', x'', 'gzip', 'staging')`); err != nil {
			return err
		}
		for i, m := range members {
			if _, err := tx.ExecContext(ctx, `INSERT INTO dataset_parts(name, version, seq, data) VALUES ('old', 1, ?, ?)`, i, m); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `UPDATE datasets SET state = 'ready' WHERE name = 'old'`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, got, _, err := st.DatasetFiles(ctx, "old", 1)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("gzip content, whole: %d bytes of %d, %v", len(got), len(content), err)
	}
	rc, err := st.DatasetContent(ctx, "old", 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if got, err := io.ReadAll(rc); err != nil || !bytes.Equal(got, content) {
		t.Fatalf("gzip content, streamed: %d bytes of %d, %v", len(got), len(content), err)
	}
}

func TestVersionsStoredBeforeCompressionStillRead(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content)
			VALUES ('old', 1, '2026-05-01T12:00:00Z', 'aa', 1, '{}', ?)`, []byte("plain line\n"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, content, _, err := st.DatasetFiles(ctx, "old", 1)
	if err != nil || string(content) != "plain line\n" {
		t.Fatalf("identity content: %q %v", content, err)
	}
}

func TestStoredContentIsCompressedAndItsEncodingCannotChange(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	content := bytes.Repeat([]byte(`{"id":"it_0000000000000001","expected_tool":"refund"}`+"\n"), 1000)
	v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", SHA256: "aa", Count: 1}
	err := st.writeDatasetVersion(ctx, v1.Name, v1.Version, map[string]string{"it_0000000000000001": "h"}, rowOf(v1, []byte(`{}`), compressed(t, []byte(content))), defaultBulkPace)
	if err != nil {
		t.Fatal(err)
	}
	var encoding string
	var stored int
	if err := st.r.QueryRowContext(ctx, `SELECT content_encoding, length(content) + (SELECT sum(length(data)) FROM dataset_parts) FROM datasets`).Scan(&encoding, &stored); err != nil {
		t.Fatal(err)
	}
	if encoding != contentZstd || stored >= len(content)/10 {
		t.Errorf("stored %d bytes as %q for %d bytes of content, want zstd and far smaller", stored, encoding, len(content))
	}
	for _, q := range []string{
		`UPDATE datasets SET content_encoding = 'identity'`,
		`UPDATE datasets SET content_encoding = 'identity', content = x'00'`,
	} {
		err := st.WithTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q); return err })
		if !errors.Is(err, ErrImmutable) {
			t.Errorf("%s: got %v, want ErrImmutable", q, err)
		}
	}
	err = st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content_encoding, content)
			VALUES ('e', 1, 'now', 'aa', 1, '{}', 'brotli', x'00')`)
		return err
	})
	if err == nil {
		t.Error("unknown content_encoding accepted")
	}
	_, got, _, err := st.DatasetFiles(ctx, "d", 1)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("content changed: %d bytes, %v", len(got), err)
	}
}

// contentChunkSize is how much of the JSONL one part of bytesParts holds.
const contentChunkSize = 4 << 20

// bytesParts is content in one slice, served in parts of 4 MiB.
type bytesParts []byte

func (b bytesParts) NumParts() int { return (len(b) + contentChunkSize - 1) / contentChunkSize }

func (b bytesParts) AppendPart(i int, dst []byte) []byte {
	return append(dst, b[i*contentChunkSize:min((i+1)*contentChunkSize, len(b))]...)
}

// compressed is content compressed for a version.
func compressed(t *testing.T, content []byte) Compressed {
	t.Helper()
	c, err := CompressContent(bytesParts(content))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// rowOf hands a version row, manifest and content to writeDatasetVersion.
func rowOf(v DatasetVersion, manifest []byte, content Compressed) func() (NewVersion, error) {
	return func() (NewVersion, error) { return NewVersion{v, manifest, content}, nil }
}

// writeDatasetVersion stages a version, asks rest for the rest, and
// completes it, or removes it when rest fails: what an export does.
func (s *Store) writeDatasetVersion(ctx context.Context, name string, version int, hashes map[string]string, rest func() (NewVersion, error), pace bulkPace) error {
	v, err := s.stageDatasetVersion(ctx, name, version, hashes, pace)
	if err != nil {
		return err
	}
	nv, err := rest()
	if err != nil {
		return v.fail(ctx, err)
	}
	return v.Complete(ctx, nv)
}

func TestCompressorGivesTheSameMembersInAnyOrder(t *testing.T) {
	var lines bytes.Buffer
	for i := 0; lines.Len() < 3*contentChunkSize+5; i++ {
		fmt.Fprintf(&lines, `{"id":"it_%016x","expected_tool":"refund"}`+"\n", i)
	}
	content := bytesParts(lines.Bytes())
	want, err := CompressContent(content)
	if err != nil {
		t.Fatal(err)
	}
	n := content.NumParts()
	z := NewCompressor(n)
	released := make(chan int, n)
	for i := n - 1; i >= 0; i-- { // last part first
		z.Add(i, content.AppendPart(i, nil), func() { released <- i })
	}
	got, err := z.Close()
	if err != nil {
		t.Fatal(err)
	}
	if len(released) != n {
		t.Errorf("%d parts released, want %d", len(released), n)
	}
	if len(got.members) != n || !bytes.Equal(bytes.Join(got.members, nil), bytes.Join(want.members, nil)) {
		t.Fatalf("parts handed over backwards: %d members, different bytes", len(got.members))
	}
	// A part never handed over (the file's write failed): no content.
	z = NewCompressor(n)
	z.Add(0, content.AppendPart(0, nil), func() {})
	if _, err := z.Close(); err == nil {
		t.Fatal("content with parts missing: no error")
	}
}

// TestZstdMigrationKeepsStoredVersions applies 0022 (the datasets rebuild
// that adds 'zstd' to content_encoding) to a database holding a ready
// gzip version with its items and parts: the version reads back exactly,
// stays immutable, and its items and parts still reference it.
func TestZstdMigrationKeepsStoredVersions(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	w, err := sqlite.ApplyMigrations(ctx, path, migrationsFS(t), func(v int) bool { return v < 22 })
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("{\"id\":\"it_1\"}\n{\"id\":\"it_2\"}\n")
	var member bytes.Buffer
	zw := gzip.NewWriter(&member)
	zw.Write(content)
	zw.Close()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO datasets(name, version, created_at, sha256, count, manifest, content, content_encoding, state)
			VALUES ('old', 1, 'x', 'aa', 2, '{"m":1}', x'', 'gzip', 'staging')`, nil},
		{`INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ('old', 1, 'it_1', 'h1'), ('old', 1, 'it_2', 'h2')`, nil},
		{`INSERT INTO dataset_parts(name, version, seq, data) VALUES ('old', 1, 0, ?)`, []any{member.Bytes()}},
		{`UPDATE datasets SET state = 'ready' WHERE name = 'old'`, nil},
	} {
		if _, err := w.ExecContext(ctx, q.sql, q.args...); err != nil {
			t.Fatalf("%s: %v", q.sql, err)
		}
	}
	w.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	v, got, manifest, err := st.DatasetFiles(ctx, "old", 1)
	if err != nil || !bytes.Equal(got, content) || string(manifest) != `{"m":1}` || v.Count != 2 {
		t.Fatalf("after the rebuild: %+v %q %q %v", v, got, manifest, err)
	}
	if hashes, err := st.DatasetRecordHashes(ctx, "old", 1); err != nil || len(hashes) != 2 || hashes["it_2"] != "h2" {
		t.Fatalf("items after the rebuild: %v %v", hashes, err)
	}
	for _, q := range []string{
		`UPDATE datasets SET message = 'x'`,
		`DELETE FROM datasets`,
		`INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ('old', 1, 'it_3', 'h3')`,
		`DELETE FROM dataset_parts`,
	} {
		err := st.WithTx(ctx, func(tx *Tx) error { _, err := tx.ExecContext(ctx, q); return err })
		if !errors.Is(err, ErrImmutable) {
			t.Errorf("%s after the rebuild: got %v, want ErrImmutable", q, err)
		}
	}
	err = st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO dataset_items(name, version, item_id, record_hash) VALUES ('none', 1, 'it_1', 'h')`)
		return err
	})
	if err == nil {
		t.Error("an item of no version accepted: foreign keys do not reach the rebuilt table")
	}
}

// Decoding a version of many frames allocates in proportion to its size:
// growing the output to each frame's exact size would copy what was
// decoded so far once per frame (here some 30 times the content).
func TestZstdContentOfManyFramesDecodesInLinearMemory(t *testing.T) {
	const frames, frameSize = 64, 64 << 10
	var lines bytes.Buffer
	for i := 0; lines.Len() < frames*frameSize; i++ {
		fmt.Fprintf(&lines, `{"id":"it_%016x","expected_tool":"refund"}`+"\n", i)
	}
	content := lines.Bytes()[:frames*frameSize] // compresses well: far more than a guess from the blob's size
	z := NewCompressor(frames)
	for i := range frames {
		z.Add(i, content[i*frameSize:(i+1)*frameSize], func() {})
	}
	c, err := z.Close()
	if err != nil {
		t.Fatal(err)
	}
	blob := bytes.Join(c.members, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := decodeContent(contentZstd, blob)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, content) {
		t.Fatalf("round trip: %d bytes of %d, %v", len(got), len(content), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16*uint64(len(content)) {
		t.Errorf("decoding %d bytes in %d frames allocated %d bytes", len(content), frames, alloc)
	}
}

// The size of zstd content is read from its frames' headers (a frame under
// 256 bytes records none: its window, 1 KiB here, counts); a truncated or
// foreign blob has none (and is streamed instead).
func TestZstdContentSizeFromFrameHeaders(t *testing.T) {
	var lines bytes.Buffer
	for i := 0; lines.Len() < 3*contentChunkSize+11; i++ {
		fmt.Fprintf(&lines, `{"id":"it_%016x","expected_tool":"refund"}`+"\n", i)
	}
	for _, content := range [][]byte{{}, []byte("x\n"), bytes.Repeat([]byte{'a'}, contentChunkSize), lines.Bytes()} {
		members, err := compressContent(bytesParts(content))
		if err != nil {
			t.Fatal(err)
		}
		blob := bytes.Join(members, nil)
		if n, ok := zstdContentSize(blob); !ok || n < len(content) || n > len(content)+1<<10 {
			t.Errorf("%d bytes in %d frames: size %d %v", len(content), len(members), n, ok)
		}
		if len(blob) > 8 {
			if _, ok := zstdContentSize(blob[:len(blob)-1]); ok {
				t.Errorf("%d bytes, truncated: a size", len(content))
			}
		}
	}
	if _, ok := zstdContentSize([]byte("not zstd at all")); ok {
		t.Error("not zstd: a size")
	}
}
