package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
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
func Verify(r io.Reader, m *Manifest) (Summary, error) {
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(r, h), 1<<20)
	sum := Summary{ToolCounts: map[string]int{}}
	seen := 0
	prev := ""
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
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
		rec, err := DecodeRecord(line)
		if err != nil {
			return sum, &LineError{n, err}
		}
		switch {
		case rec.ID == prev:
			return sum, &LineError{n, fmt.Errorf("duplicate id %s", rec.ID)}
		case rec.ID < prev:
			return sum, &LineError{n, fmt.Errorf("id %s is out of order (after %s): lines must be sorted by id", rec.ID, prev)}
		}
		prev = rec.ID
		if m != nil {
			want, ok := m.RecordHashes[rec.ID]
			if !ok {
				return sum, &LineError{n, fmt.Errorf("item %s is not in the manifest", rec.ID)}
			}
			if got := shortHash(RecordHash(line)); got != want {
				return sum, &LineError{n, fmt.Errorf("record %s differs from the one the manifest describes (hash %s, manifest %s)", rec.ID, got, want)}
			}
			seen++
		}
		sum.Records++
		sum.ToolCounts[rec.FirstTool()]++
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
