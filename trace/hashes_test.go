package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/internal/shareddata"
)

// hashFixtures lists the inputs whose hashes testdata/hashes.golden pins:
// every fixture the trace tests, the project's testdata and the shared
// conformance data hold, each read with format auto.
func hashFixtures(t *testing.T) map[string]string {
	files := map[string]string{} // name in the golden -> path
	add := func(dir, prefix string) {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") && !strings.HasSuffix(path, ".json") {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			files[prefix+filepath.ToSlash(rel)] = path
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("testdata", "trace/testdata/")
	add(filepath.Join("..", "testdata"), "testdata/")
	if dir, ok := shareddata.Dir(); ok {
		add(dir, "shared/")
	}
	return files
}

// hashLines reads one input and describes every trace it yields: its id,
// content hash, canonical messages' hash, tool hashes and items' input
// hashes, as an Encoder computes them.
func hashLines(name string, data []byte) []string {
	r, err := NewReader(bytes.NewReader(data), FormatAuto)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	var out []string
	enc := NewEncoder()
	for n := 1; n < 100000; n++ {
		tr, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			out = append(out, fmt.Sprintf("%s #%d: %v", name, n, err))
			var rerr *RecordError
			if !errorsAs(err, &rerr) {
				break
			}
			continue
		}
		e, err := enc.Encode(tr)
		if err != nil {
			out = append(out, fmt.Sprintf("%s #%d: encode: %v", name, n, err))
			continue
		}
		line := fmt.Sprintf("%s #%d %s content=%s messages=%s", name, n, tr.ID, e.ContentHash, shortHash(e.Messages))
		for _, h := range e.ToolHashes {
			line += " tool=" + h[:16]
		}
		for _, it := range e.Items {
			obs, _ := json.Marshal(it.Observed)
			line += fmt.Sprintf(" item=%s/%s/%s", it.ID, it.InputHash[:16], shortHash(obs))
		}
		out = append(out, line)
	}
	return out
}

func shortHash(b []byte) string {
	return fmt.Sprintf("%x", sha256Sum(b))[:16]
}

// The content hash, canonical messages, tool and input hashes of every
// trace in the fixtures are those the code computed before the record
// lexer and the hand-written encoder (the golden was written by commit
// 73c20f1): stores dedupe against them.
func TestHashesOfFixturesUnchanged(t *testing.T) {
	files := hashFixtures(t)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var got []string
	for _, n := range names {
		data, err := os.ReadFile(files[n])
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, hashLines(n, data)...)
	}
	got = append(got, hashLines("benchTraces(100, 7)", benchTraces(100, 7))...)
	golden := filepath.Join("testdata", "hashes.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	wantSet := map[string]bool{}
	for _, w := range want {
		wantSet[w] = true
	}
	for _, g := range got {
		if !wantSet[g] && !strings.HasPrefix(g, "shared/") {
			t.Errorf("not in the golden: %s", g)
		}
	}
	gotSet := map[string]bool{}
	for _, g := range got {
		gotSet[g] = true
	}
	for _, w := range want {
		// The shared data may be absent (or newer) on another machine.
		if !gotSet[w] && (!strings.HasPrefix(w, "shared/") || len(files) > 0 && hasShared(files)) {
			t.Errorf("missing: %s", w)
		}
	}
}

func hasShared(files map[string]string) bool {
	for n := range files {
		if strings.HasPrefix(n, "shared/") {
			return true
		}
	}
	return false
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }

func errorsAs(err error, target any) bool { return errors.As(err, target) }
