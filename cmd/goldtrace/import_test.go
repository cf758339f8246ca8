package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
)

// impRun runs goldtrace with args against db and returns stdout, stderr (with
// the line main would print for an error) and the exit code.
// impRun runs goldtrace; the "created DB" line of a first import, which
// TestCreatedDatabaseIsSaid checks, is left out of stderr.
func impRun(t *testing.T, db string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	out, errOut, code, _ := runCLI(db, stdin, args...)
	return out, strings.TrimPrefix(errOut, "created "+db+"\n"), code
}

func impWrite(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func impLine(id string, calls string) string {
	return fmt.Sprintf(`{"id":%q,"metadata":{"cohort":"billing"},"tools":[{"name":"f","parameters":{"type":"object"}}],"messages":[{"role":"user","content":"q %s"},{"role":"assistant","tool_calls":[%s]}]}`, id, id, calls)
}

func impTraceCount(t *testing.T, db string) int {
	t.Helper()
	out, errs, code := impRun(t, db, "", "traces", "--json")
	if code != 0 {
		t.Fatalf("traces: %s", errs)
	}
	var sum struct{ Traces int }
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	return sum.Traces
}

func impGzip(body string) string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(body))
	zw.Close()
	return buf.String()
}

func TestImportBadInput(t *testing.T) {
	good := impLine("tr_a", `{"name":"f","arguments":"{\"x\":1}"}`) + "\n" + impLine("tr_b", `{"name":"f","arguments":"{}"}`) + "\n"
	var many strings.Builder
	for i := 0; i < 3000; i++ {
		many.WriteString(impLine(fmt.Sprintf("tr_%04d", i), `{"name":"f","arguments":"{}"}`) + "\n")
	}
	gz := impGzip(many.String())
	tests := []struct {
		name    string
		file    string
		body    string
		line    int    // the reported line; 0 = FILE: without a line
		says    string // in the error line
		skipped int    // with --skip-invalid: invalid records reported
		kept    int    // with --skip-invalid: traces imported (-1: the file is still refused)
	}{
		{"truncated line", "t.jsonl", good + `{"id":"tr_c","messages":[{"ro`, 3, "truncated", 1, 2},
		{"invalid JSON", "j.jsonl", "{oops\n" + good, 1, "invalid JSON", 1, 2},
		{"messages a string", "m.jsonl", good + `{"id":"x","messages":"hi"}` + "\n", 3, "messages: must be an array", 1, 2},
		{"unknown role", "r.jsonl", good + `{"id":"x","messages":[{"role":"robot","content":"x"}]}` + "\n", 3, `unknown role "robot"`, 1, 2},
		{"call without name", "n.jsonl", impLine("tr_x", `{"arguments":"{}"}`) + "\n" + good, 1, "no name", 1, 2},
		{"binary garbage", "bin.jsonl", "\x00\x9f\x88garbage\x00", 1, "binary", 0, -1},
		{"cut-short gzip", "cut.jsonl.gz", gz[:len(gz)/2], -1, "truncated gzip", 0, -1},
		{"empty file", "empty.jsonl", "", 0, "no records", 0, -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "gt.db")
			path := impWrite(t, dir, tc.file, tc.body)
			out, errs, code := impRun(t, db, "", "import", path)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (stdout %q, stderr %q)", code, out, errs)
			}
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if len(lines) != 1 {
				t.Fatalf("stderr has %d lines, want one: %q", len(lines), errs)
			}
			prefix := regexp.QuoteMeta(path) + ":"
			switch {
			case tc.line > 0:
				prefix += fmt.Sprintf("%d: ", tc.line)
			case tc.line < 0:
				prefix += `\d+: `
			default:
				prefix += " "
			}
			if !regexp.MustCompile(prefix).MatchString(lines[0]) || !strings.Contains(lines[0], tc.says) {
				t.Fatalf("stderr %q: want %s… saying %q", lines[0], prefix, tc.says)
			}
			if n := impTraceCount(t, db); n != 0 {
				t.Fatalf("%d traces imported from a refused file", n)
			}

			out, errs, code = impRun(t, db, "", "import", "--skip-invalid", path)
			if tc.kept < 0 {
				if code != 2 || impTraceCount(t, db) != 0 {
					t.Fatalf("--skip-invalid on an unreadable file: exit %d, stderr %q", code, errs)
				}
				return
			}
			if code != 0 {
				t.Fatalf("--skip-invalid: exit %d, stderr %q", code, errs)
			}
			reported := strings.Split(strings.TrimSpace(errs), "\n")
			if len(reported) != tc.skipped || !strings.HasPrefix(reported[0], fmt.Sprintf("%s:%d: ", path, tc.line)) {
				t.Fatalf("--skip-invalid stderr %q", errs)
			}
			want := fmt.Sprintf("imported %d traces, 0 already stored, %d invalid skipped", tc.kept, tc.skipped)
			if !strings.Contains(out, want) {
				t.Fatalf("summary %q, want %q", out, want)
			}
			if n := impTraceCount(t, db); n != tc.kept {
				t.Fatalf("%d traces stored, want %d", n, tc.kept)
			}
		})
	}
}

func TestImportMissingFile(t *testing.T) {
	dir := t.TempDir()
	_, errs, code := impRun(t, filepath.Join(dir, "gt.db"), "", "import", filepath.Join(dir, "nope.jsonl"))
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "nope.jsonl: no such file") {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
}

func TestImportReimportAndConflicts(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	var body strings.Builder
	for i := 0; i < 120; i++ {
		body.WriteString(impLine(fmt.Sprintf("tr_%03d", i), `{"name":"f","arguments":"{}"}`) + "\r\n")
	}
	path := impWrite(t, dir, "a.jsonl", "\xef\xbb\xbf"+body.String())
	out, errs, code := impRun(t, db, "", "import", path)
	if code != 0 || !strings.Contains(out, "imported 120 traces, 0 already stored, 0 invalid skipped, 120 items created") {
		t.Fatalf("first import: exit %d out %q err %q", code, out, errs)
	}
	out, _, code = impRun(t, db, "", "import", path)
	if code != 0 || !strings.Contains(out, "imported 0 traces, 120 already stored") {
		t.Fatalf("re-import: exit %d out %q", code, out)
	}
	// Same content through stdin, gzipped: still no duplicates.
	out, _, code = impRun(t, db, impGzip(body.String()), "import", "--json", "-")
	var rep app.ImportReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Total.Duplicates != 120 || rep.Total.Imported != 0 {
		t.Fatalf("stdin gzip: exit %d out %q", code, out)
	}
	// Same id, other content: an invalid record.
	other := impWrite(t, dir, "b.jsonl", impLine("tr_new", `{"name":"f","arguments":"{}"}`)+"\n"+impLine("tr_007", `{"name":"f","arguments":"{\"changed\":true}"}`)+"\n")
	_, errs, code = impRun(t, db, "", "import", other)
	if code != 2 || !strings.Contains(errs, other+":2: trace id \"tr_007\" is already stored with different content") {
		t.Fatalf("conflict: exit %d stderr %q", code, errs)
	}
	if n := impTraceCount(t, db); n != 120 {
		t.Fatalf("%d traces after an aborted import, want 120", n)
	}
	out, _, code = impRun(t, db, "", "import", "--skip-invalid", other)
	if code != 0 || !strings.Contains(out, "imported 1 trace, 0 already stored, 1 invalid skipped") {
		t.Fatalf("conflict skipped: exit %d out %q", code, out)
	}
}

func TestImportLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("10 MB line")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	long := fmt.Sprintf(`{"id":"tr_long","messages":[{"role":"user","content":%q},{"role":"assistant","content":"ok"}]}`, strings.Repeat("y", 10<<20))
	path := impWrite(t, dir, "long.jsonl", long+"\n"+impLine("tr_short", `{"name":"f","arguments":"{}"}`)+"\n")
	out, errs, code := impRun(t, db, "", "import", path)
	if code != 0 || !strings.Contains(out, "imported 2 traces") {
		t.Fatalf("exit %d out %q err %q", code, out, errs)
	}
}

func TestTracesSummary(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "gt.db")
	body := `{"id":"t1","timestamp":"2026-05-01T12:00:00Z","metadata":{"cohort":"billing","model":"m1"},"tools":[{"name":"f"},{"name":"g"}],"messages":[{"role":"user","content":"a"},{"role":"assistant","tool_calls":[{"name":"f","arguments":{}}]},{"role":"tool","content":"r"},{"role":"assistant","content":"done"}]}
{"id":"t2","timestamp":"2026-05-03T08:00:00Z","metadata":{"cohort":"shipping","model":"m1"},"tools":[{"name":"g"}],"messages":[{"role":"user","content":"b"},{"role":"assistant","tool_calls":[{"name":"g","arguments":{}}]}]}
`
	if _, errs, code := impRun(t, db, "", "import", impWrite(t, dir, "s.jsonl", body)); code != 0 {
		t.Fatal(errs)
	}
	out, _, code := impRun(t, db, "", "traces", "--json")
	if code != 0 {
		t.Fatal(out)
	}
	var sum store.TraceSummary
	if err := json.Unmarshal([]byte(out), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Traces != 2 || sum.Items != 3 || sum.ItemsWithCalls != 2 || sum.ItemsWithoutCalls != 1 || sum.DistinctTools != 2 {
		t.Errorf("counts: %+v", sum)
	}
	if len(sum.FirstTools) != 3 || sum.FirstTools[0] != (store.Count{Value: "f", N: 1}) && sum.FirstTools[0] != (store.Count{Value: "(none)", N: 1}) {
		t.Errorf("first tools: %+v", sum.FirstTools)
	}
	if len(sum.Metadata) != 2 || sum.Metadata[1].Key != "model" || sum.Metadata[1].Top[0] != (store.Count{Value: "m1", N: 2}) {
		t.Errorf("metadata: %+v", sum.Metadata)
	}
	if sum.From == nil || sum.From.Format(time.RFC3339) != "2026-05-01T12:00:00Z" || sum.To.Format(time.RFC3339) != "2026-05-03T08:00:00Z" {
		t.Errorf("range %v … %v", sum.From, sum.To)
	}
	text, _, _ := impRun(t, db, "", "traces")
	for _, want := range []string{"traces: 2", "items:  3 (2 with calls, 1 without)", "meta.cohort", "shipping"} {
		if !strings.Contains(text, want) {
			t.Errorf("text summary lacks %q:\n%s", want, text)
		}
	}
}

// TestImportStdin imports stdin, plain and gzipped, and leaves no temporary
// file behind (an import keeps none: it writes while it reads).
func TestImportStdin(t *testing.T) {
	dir := t.TempDir()
	tmpDir := t.TempDir()
	t.Setenv("TMPDIR", tmpDir)
	db := filepath.Join(dir, "gt.db")
	var body strings.Builder
	for i := 0; i < 1500; i++ {
		body.WriteString(impLine(fmt.Sprintf("tr_%04d", i), `{"name":"f","arguments":"{}"}`) + "\n")
	}
	for _, tc := range []struct{ name, stdin string }{{"plain", body.String()}, {"gzip", impGzip(body.String())}} {
		t.Run(tc.name, func(t *testing.T) {
			out, errs, code := impRun(t, db, tc.stdin, "import", "-")
			if code != 0 {
				t.Fatalf("exit %d stderr %q", code, errs)
			}
			if tc.name == "plain" && !strings.Contains(out, "stdin: imported 1500 traces, 0 already stored") ||
				tc.name == "gzip" && !strings.Contains(out, "stdin: imported 0 traces, 1500 already stored") {
				t.Fatalf("summary %q", out)
			}
			if left, _ := os.ReadDir(tmpDir); len(left) != 0 {
				t.Fatalf("temporary files left behind: %v", left)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".goldtrace-import-*")); len(left) != 0 {
				t.Fatalf("temporary files left beside the database: %v", left)
			}
		})
	}
	// An invalid last record on stdin: nothing imported, nothing left behind.
	_, errs, code := impRun(t, filepath.Join(dir, "other.db"), body.String()+`{"id":"x","messages":[{"role":"robot"}]}`+"\n", "import", "-")
	if code != 2 || !strings.HasPrefix(errs, "goldtrace: stdin:1501: ") {
		t.Fatalf("exit %d stderr %q", code, errs)
	}
	if n := impTraceCount(t, filepath.Join(dir, "other.db")); n != 0 {
		t.Fatalf("%d traces imported from a refused stdin", n)
	}
	if left, _ := os.ReadDir(tmpDir); len(left) != 0 {
		t.Fatalf("temporary files left behind: %v", left)
	}
}

// A command that creates a database says so on stderr (a mistyped --db must
// not quietly start a new project); one that finds it does not; a path
// that cannot be a database file is named for what it is.
func TestCreatedDatabaseIsSaid(t *testing.T) {
	dir := t.TempDir()
	traces := filepath.Join(dir, "t.jsonl")
	if _, errs, code, _ := runCLI(filepath.Join(dir, "unused.db"), "", "demo", "--write-traces", "3", traces); code != 0 {
		t.Fatal(errs)
	}
	typo := filepath.Join(dir, "supprt.db")
	if _, errs, code, _ := runCLI(typo, "", "import", traces); code != 0 || !strings.HasPrefix(errs, "created "+typo+"\n") {
		t.Fatalf("first import: exit %d, stderr %q", code, errs)
	}
	if _, errs, code, _ := runCLI(typo, "", "import", traces); code != 0 || strings.Contains(errs, "created") {
		t.Fatalf("second import: exit %d, stderr %q", code, errs)
	}
	if _, errs, code, _ := runCLI(filepath.Join(dir, "lead.db"), "", "users", "add", "carol", "--role", "lead"); code != 0 || !strings.Contains(errs, "created ") {
		t.Fatalf("users add: exit %d, stderr %q", code, errs)
	}
	for _, tt := range []struct{ db, want string }{
		{filepath.Join(dir, "nodir", "x.db"), "database " + filepath.Join(dir, "nodir", "x.db") + ": directory " + filepath.Join(dir, "nodir") + " does not exist"},
		{dir, "database " + dir + " is a directory, not a goldtrace database file"},
		{filepath.Join(traces, "x.db"), ": " + traces + " is not a directory"},
	} {
		for _, args := range [][]string{{"import", traces}, {"status"}} {
			_, errs, code, _ := runCLI(tt.db, "", args...)
			if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, tt.want) || strings.Contains(errs, "permission") {
				t.Errorf("%s %v: exit %d, stderr %q; want %q", tt.db, args, code, errs, tt.want)
			}
		}
	}
}
