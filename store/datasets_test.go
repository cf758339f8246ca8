package store

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func insertVersion(t *testing.T, st *Store, v DatasetVersion, hashes map[string]string) error {
	t.Helper()
	ctx := context.Background()
	return st.WithTx(ctx, func(tx *Tx) error {
		return st.InsertDatasetVersion(ctx, tx, v.Name, v.Version, hashes, rowOf(v, []byte(`{"name":"`+v.Name+`"}`), compressed(t, []byte("content "+v.SHA256+"\n"))))
	})
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
	v1 := DatasetVersion{Name: "d", Version: 1, CreatedAt: "2026-05-01T12:00:00Z", CreatedBy: "carol", Message: "first", SHA256: "aa", Count: len(hashes)}
	if err := insertVersion(t, st, v1, hashes); err != nil {
		t.Fatal(err)
	}
	v2 := v1
	v2.Version, v2.ParentVersion, v2.SHA256, v2.Message = 2, 1, "bb", "second"
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
