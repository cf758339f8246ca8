package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/trace"
)

// LineError is a problem with one line of a dataset file.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Summary is what Verify found in a valid file.
type Summary struct {
	Records    int
	SHA256     string
	ToolCounts map[string]int
}

// Verify reads a canonical dataset file and checks that every line is a
// canonical gold record, that ids are strictly increasing, and — when m is
// not nil — that the file is the one the manifest describes (each record's
// hash, the sha256, the count and the per-tool counts). The first problem is
// returned: a *LineError when it belongs to one line.
//
// With a manifest, a line whose sha256 starts with the record hash the
// manifest lists for its id is the line goldtrace exported, and it is not
// decoded again (the whole file's sha256 is still checked against the
// manifest's at the end); any other line is decoded strictly, so the
// problem is named as VerifyDeep names it. VerifyDeep decodes every line.
func Verify(r io.Reader, m *Manifest) (Summary, error) { return verify(r, m, false) }

// VerifyDeep is Verify decoding every line, even those the manifest's
// record hashes already vouch for.
func VerifyDeep(r io.Reader, m *Manifest) (Summary, error) { return verify(r, m, true) }

// verify is long because it checks one stream line by line against the
// manifest (order, ids, hashes, counts) in one pass over a file that may
// be gigabytes; its checks share the line's state.
func verify(r io.Reader, m *Manifest, deep bool) (Summary, error) {
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 1<<20)
	sum := Summary{ToolCounts: map[string]int{}}
	seen := 0
	prev := ""
	fast := m != nil && !deep
	var long []byte
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if errors.Is(err, io.EOF) {
			if len(line) > 0 {
				return sum, &LineError{n, errors.New("no newline at the end of the last line (file truncated?)")}
			}
			break
		}
		if err != nil {
			return sum, fmt.Errorf("read: %w", err)
		}
		line = line[:len(line)-1]
		if len(line) == 0 {
			return sum, &LineError{n, errors.New("empty line")}
		}
		if bytes.HasSuffix(line, []byte("\r")) {
			return sum, &LineError{n, errors.New("line ends with \\r\\n; gold files use \\n")}
		}
		var id string
		vouched := false
		if fast {
			if cid, tool, ok := canonicalIDAndTool(line); ok {
				if want, listed := m.RecordHashes[cid]; listed && len(want) == 16 {
					lineSum := sha256.Sum256(line)
					if hex.EncodeToString(lineSum[:8]) == want {
						id, vouched = cid, true
						sum.ToolCounts[tool]++
					}
				}
			}
		}
		if !vouched {
			rec, err := DecodeRecord(line)
			if err != nil {
				return sum, &LineError{n, err}
			}
			id = rec.ID
			sum.ToolCounts[rec.FirstTool()]++
		}
		switch {
		case id == prev:
			return sum, &LineError{n, fmt.Errorf("duplicate id %s", id)}
		case id < prev:
			return sum, &LineError{n, fmt.Errorf("id %s is out of order (after %s): lines must be sorted by id", id, prev)}
		}
		prev = id
		if m != nil && !vouched {
			want, ok := m.RecordHashes[id]
			if !ok {
				return sum, &LineError{n, fmt.Errorf("item %s is not in the manifest", id)}
			}
			if got := shortHash(RecordHash(line)); got != want {
				return sum, &LineError{n, fmt.Errorf("record %s differs from the one the manifest describes (hash %s, manifest %s)", id, got, want)}
			}
		}
		if m != nil {
			seen++
		}
		sum.Records++
	}
	sum.SHA256 = hex.EncodeToString(h.Sum(nil))
	if sum.Records == 0 {
		return sum, errors.New("no records")
	}
	if m == nil {
		return sum, nil
	}
	if seen != len(m.RecordHashes) {
		return sum, fmt.Errorf("%d items listed in the manifest are missing from the file", len(m.RecordHashes)-seen)
	}
	if sum.Records != m.Count {
		return sum, fmt.Errorf("%d records, manifest says %d", sum.Records, m.Count)
	}
	if sum.SHA256 != m.SHA256 {
		return sum, fmt.Errorf("sha256 %s, manifest says %s", sum.SHA256, m.SHA256)
	}
	tools := sortedKeys(sum.ToolCounts)
	for _, k := range sortedKeys(m.ToolCounts) {
		if sum.ToolCounts[k] != m.ToolCounts[k] {
			return sum, fmt.Errorf("%d records expect %s, manifest says %d", sum.ToolCounts[k], k, m.ToolCounts[k])
		}
	}
	for _, k := range tools {
		if _, ok := m.ToolCounts[k]; !ok {
			return sum, fmt.Errorf("%d records expect %s, manifest has no count for it", sum.ToolCounts[k], k)
		}
	}
	return sum, nil
}

// canonicalIDAndTool reads the id and the expected tool (trace.NoTool for
// null) of a line laid out as a canonical record: {"id":"…","input":…,
// "available_tools":…,"expected_tool":…. ok is false for any other layout
// (or escapes in either string): the caller decodes such a line.
func canonicalIDAndTool(line []byte) (id, tool string, ok bool) {
	i, ok := expectKey(line, 0, `{"id":`)
	if !ok {
		return "", "", false
	}
	id, i, ok = plainString(line, i)
	if !ok {
		return "", "", false
	}
	for _, key := range []string{`,"input":`, `,"available_tools":`} {
		if i, ok = expectKey(line, i, key); !ok {
			return "", "", false
		}
		if i, ok = skipValue(line, i); !ok {
			return "", "", false
		}
	}
	if j, ok := expectKey(line, i, `,"catalogue":`); ok { // gold.RecordFormat2
		if i, ok = skipValue(line, j); !ok {
			return "", "", false
		}
	}
	if i, ok = expectKey(line, i, `,"expected_tool":`); !ok {
		return "", "", false
	}
	if bytes.HasPrefix(line[i:], []byte("null,")) {
		return id, trace.NoTool, true
	}
	tool, _, ok = plainString(line, i)
	return id, tool, ok
}

func expectKey(b []byte, i int, key string) (int, bool) {
	if !bytes.HasPrefix(b[i:], []byte(key)) {
		return 0, false
	}
	return i + len(key), true
}

// plainString reads a JSON string without escapes at b[i].
func plainString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	end := bytes.IndexByte(b[i+1:], '"')
	if end < 0 {
		return "", 0, false
	}
	s := b[i+1 : i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return "", 0, false
	}
	return string(s), i + 2 + end, true
}

// skipValue returns the index after the JSON value starting at b[i]
// (strings, objects and arrays by their brackets, scalars up to the next
// delimiter), without validating it: the line's hash does that.
func skipValue(b []byte, i int) (int, bool) {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i++
			for {
				j := bytes.IndexAny(b[i:], `"\\`)
				if j < 0 {
					return 0, false
				}
				i += j
				if b[i] == '"' {
					break
				}
				i += 2 // an escape and the byte it escapes
			}
			i++
		case '{', '[':
			depth++
			i++
		case '}', ']':
			if depth == 0 {
				return i, true
			}
			depth--
			i++
		case ',':
			if depth == 0 {
				return i, true
			}
			i++
		default:
			i++
		}
		if depth == 0 && i < len(b) && (b[i] == ',' || b[i] == '}' || b[i] == ']') {
			return i, true
		}
	}
	return 0, false
}
