package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// sampleVersion builds three traces' gold into a version and its manifest.
func sampleVersion(t *testing.T) (Content, Manifest) {
	t.Helper()
	var lines []Line
	for _, id := range []string{"tr_c", "tr_a", "tr_b"} {
		ls, err := BuildLines(TraceGold{Trace: orderTrace(id), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, ls...)
	}
	c, err := Assemble(lines)
	if err != nil {
		t.Fatal(err)
	}
	m := NewManifest(VersionInfo{Name: "support", Version: 1, CreatedAt: time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)}, c)
	return c, m
}

func TestVerifyAcceptsAnExport(t *testing.T) {
	c, m := sampleVersion(t)
	sum, err := Verify(bytes.NewReader(c.Bytes()), &m)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != 6 || sum.SHA256 != m.SHA256 || sum.ToolCounts[trace.NoTool] != 3 || sum.ToolCounts["get_order_status"] != 3 {
		t.Errorf("summary %+v", sum)
	}
	if _, err := Verify(bytes.NewReader(c.Bytes()), nil); err != nil {
		t.Errorf("without manifest: %v", err)
	}
}

func TestVerifyNamesTheFirstBadLine(t *testing.T) {
	c, m := sampleVersion(t)
	lines := strings.SplitAfter(string(c.Bytes()), "\n")
	lines = lines[:len(lines)-1] // the empty string after the last "\n"
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "")) }
	edit := func(i int, f func(string) string) []byte {
		cp := append([]string(nil), lines...)
		cp[i] = f(cp[i])
		return join(cp)
	}
	tests := []struct {
		name     string
		content  []byte
		manifest func(*Manifest)
		line     int // 0: an error for the whole file
		want     string
	}{
		{"one byte in a value", edit(2, func(s string) string { return strings.Replace(s, "ORD-9182", "ORD-9183", 1) }), nil, 3, "differs from the one the manifest describes"},
		{"one byte breaks JSON", edit(1, func(s string) string { return strings.Replace(s, `{"id"`, `["id"`, 1) }), nil, 2, "not a JSON object"},
		{"unknown field", edit(0, func(s string) string { return strings.Replace(s, `"rationale":`, `"extra":1,"rationale":`, 1) }), nil, 1, `unknown field "extra"`},
		{"missing field", edit(0, func(s string) string { return strings.Replace(s, `"acceptable":[],`, ``, 1) }), nil, 1, `missing field "acceptable"`},
		{"spacing", edit(4, func(s string) string { return strings.Replace(s, `"rationale":`, `"rationale": `, 1) }), nil, 5, "not in canonical form"},
		{"crlf", edit(5, func(s string) string { return strings.TrimSuffix(s, "\n") + "\r\n" }), nil, 6, `\r\n`},
		{"swapped lines", join([]string{lines[1], lines[0], lines[2], lines[3], lines[4], lines[5]}), nil, 2, "out of order"},
		{"duplicate", join([]string{lines[0], lines[0], lines[1]}), nil, 2, "duplicate id"},
		{"truncated", c.Bytes()[:len(c.Bytes())-10], nil, 6, ""},
		{"empty line", join([]string{lines[0], "\n", lines[1]}), nil, 2, "empty line"},
		{"missing record", join(lines[:5]), nil, 0, "missing from the file"},
		{"count", c.Bytes(), func(m *Manifest) { m.Count = 7 }, 0, "manifest says 7"},
		{"sha256", c.Bytes(), func(m *Manifest) { m.SHA256 = strings.Repeat("0", 64) }, 0, "sha256"},
		{"tool count", c.Bytes(), func(m *Manifest) { m.ToolCounts["get_order_status"] = 2 }, 0, "expect get_order_status"},
		{"extra item", c.Bytes(), func(m *Manifest) { delete(m.RecordHashes, c.Lines[3].ID) }, 4, "not in the manifest"},
		{"empty file", nil, nil, 0, "no records"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mm := m
			mm.ToolCounts = map[string]int{}
			for k, v := range m.ToolCounts {
				mm.ToolCounts[k] = v
			}
			mm.RecordHashes = map[string]string{}
			for k, v := range m.RecordHashes {
				mm.RecordHashes[k] = v
			}
			if tc.manifest != nil {
				tc.manifest(&mm)
			}
			_, err := Verify(bytes.NewReader(tc.content), &mm)
			if err == nil {
				t.Fatal("verify passed")
			}
			if _, deep := VerifyDeep(bytes.NewReader(tc.content), &mm); deep == nil || deep.Error() != err.Error() {
				t.Errorf("Verify says %v, VerifyDeep %v", err, deep)
			}
			var le *LineError
			if tc.line > 0 && (!errors.As(err, &le) || le.Line != tc.line) {
				t.Fatalf("got %v, want an error on line %d", err, tc.line)
			}
			if tc.line == 0 && errors.As(err, &le) {
				t.Fatalf("got line error %v, want a file error", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func FuzzDecodeRecord(f *testing.F) {
	lines, err := BuildLines(TraceGold{Trace: orderTrace("tr_f"), Answers: []Answer{callAnswer(2), noCallAnswer(4)}})
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range lines {
		f.Add(l.Bytes())
	}
	f.Add([]byte(`{"id":"it_0123456789abcdef"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, line []byte) {
		rec, err := DecodeRecord(line)
		if err != nil {
			return
		}
		again, err := EncodeRecord(rec)
		if err != nil {
			t.Fatalf("decoded record does not encode: %v", err)
		}
		if !bytes.Equal(again, line) {
			t.Fatalf("accepted a non-canonical line:\n%s\n%s", line, again)
		}
	})
}

// EncodeManifest writes the record hashes by hand: byte for byte what
// encoding/json writes for the whole manifest.
func TestEncodeManifestMatchesEncodingJSON(t *testing.T) {
	_, m := sampleVersion(t)
	for _, hashes := range []map[string]string{
		nil,
		{},
		{"it_0000000000000001": "0123456789abcdef"},
		m.RecordHashes,
		{"b": "1", "a": "2", "quo\"te": "<&>", "ü": "\u2028", "tab\t": "\\"},
	} {
		m.RecordHashes = hashes
		got, err := EncodeManifest(m)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if hashes == nil {
			m.RecordHashes = map[string]string{} // written as {} either way
		}
		if err := enc.Encode(m); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%d hashes:\n%s\nencoding/json:\n%s", len(hashes), got, want.Bytes())
		}
	}
}

// TestCanonicalIDAndToolAgreesWithDecode: the fast path reads the same id
// and expected tool from a canonical line as the strict decoder.
func TestCanonicalIDAndToolAgreesWithDecode(t *testing.T) {
	c, _ := sampleVersion(t)
	nested, _ := formatsVersion(t)
	for _, content := range [][]byte{c.Bytes(), nested.Bytes()} {
		for _, line := range bytes.Split(bytes.TrimSuffix(content, []byte("\n")), []byte("\n")) {
			rec, err := DecodeRecord(line)
			if err != nil {
				t.Fatal(err)
			}
			id, tool, ok := canonicalIDAndTool(line)
			if !ok || id != rec.ID || tool != rec.FirstTool() {
				t.Errorf("fast path read (%q, %q, %v), decoder (%q, %q)", id, tool, ok, rec.ID, rec.FirstTool())
			}
		}
	}
	for _, bad := range []string{`["id":"x"]`, `{"id":"a\\b","input":{}}`, `{"id":"x","input":{"a":"}`, `{"id":"x","input":1,"available_tools":[],"expected_tool":"a\\"b"}`} {
		if _, _, ok := canonicalIDAndTool([]byte(bad)); ok {
			t.Errorf("fast path accepted %s", bad)
		}
	}
}
