package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ReadError is a failure to read the input itself (a cut-short gzip stream,
// binary data, an I/O error): the input ends at Line. Unlike a RecordError,
// reading cannot continue past it.
type ReadError struct {
	Line int // the line being read when it failed
	Err  error
}

func (e *ReadError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

func (e *ReadError) Unwrap() error { return e.Err }

// record is one JSON value of the input and the line it starts on.
type record struct {
	line int
	data []byte // valid only until the next call to next
	err  error  // a syntax error found while splitting (document mode)
}

// recordSource splits an input into JSON records. Inputs whose first line is
// a complete JSON value are JSON Lines (one record per non-blank line, any
// length). Anything else is read as a JSON document: one value, several
// concatenated values, or an array whose elements are the records (the
// shape of pretty-printed exports).
type recordSource struct {
	br   *bufio.Reader
	line int    // lines consumed so far
	buf  []byte // the current line, reused

	first    []byte // first line, held back while sniffing
	haveLine bool

	doc      *json.Decoder // document mode
	docBase  int           // line number where the document starts
	win      lineWindow
	docArray bool // the document is an array of records, '[' not yet read
	inArray  bool
	done     bool
}

const utf8BOM = "\xef\xbb\xbf"

var (
	errBinary     = errors.New("binary data, not JSON (compressed with something other than gzip?)")
	errBinaryLine = errors.New("binary data (NUL bytes) on this line, not a JSON record")
)

func newRecordSource(r io.Reader) (*recordSource, error) {
	s := &recordSource{br: bufio.NewReaderSize(r, 256<<10)}
	head, err := s.br.Peek(512)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &ReadError{Line: 1, Err: err}
	}
	if i := bytes.IndexByte(head, 0); i >= 0 && bytes.IndexByte(head[:i], '\n') < 0 {
		// Binary from the first line on: not a text file at all. Binary
		// data further down is reported on its own line (see next).
		return nil, &ReadError{Line: 1, Err: errBinary}
	}
	if bytes.HasPrefix(head, []byte(utf8BOM)) {
		_, _ = s.br.Discard(len(utf8BOM))
	}
	// Find the first non-blank line and decide the mode.
	for {
		line, err := s.readLine()
		if err == io.EOF {
			s.done = true
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		if !opensDocument(trimmed) {
			s.first = append([]byte(nil), trimmed...)
			s.haveLine = true
			return s, nil
		}
		// Document mode: re-feed this line ahead of the rest of the input.
		s.docBase = s.line
		s.docArray = trimmed[0] == '['
		rest := io.MultiReader(bytes.NewReader(append(append([]byte(nil), line...), '\n')), s.br)
		s.doc = json.NewDecoder(windowReader{r: rest, win: &s.win})
		return s, nil
	}
}

// opensDocument says whether the first line of an input starts a JSON
// document rather than being a JSON Lines record: an array of objects
// (pretty-printed or on one line), or the first line of a pretty-printed
// value ("{", or a line ending in an opening bracket or a comma). A complete
// object, or a cut-short or garbled one, is a JSON Lines record.
func opensDocument(line []byte) bool {
	if line[0] == '[' {
		rest := bytes.TrimSpace(line[1:])
		return len(rest) == 0 || rest[0] == '{'
	}
	if line[0] != '{' || json.Valid(line) {
		return false
	}
	last := line[len(line)-1]
	return len(line) == 1 || last == '{' || last == '[' || last == ','
}

// readLine returns the next line without its line ending, however long.
func (s *recordSource) readLine() ([]byte, error) {
	s.buf = s.buf[:0]
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.buf = append(s.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && err != io.EOF {
			return nil, &ReadError{Line: s.line + 1, Err: err}
		}
		if err == io.EOF && len(s.buf) == 0 {
			return nil, io.EOF
		}
		s.line++
		return bytes.TrimRight(s.buf, "\r\n"), nil
	}
}

// next returns the next record or io.EOF.
func (s *recordSource) next() (record, error) {
	if s.done {
		return record{}, io.EOF
	}
	if s.doc != nil {
		return s.nextDocValue()
	}
	if s.haveLine {
		s.haveLine = false
		return record{line: s.line, data: s.first}, nil
	}
	for {
		line, err := s.readLine()
		if err == io.EOF {
			s.done = true
			return record{}, io.EOF
		}
		if err != nil {
			return record{}, err
		}
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			if bytes.IndexByte(trimmed, 0) >= 0 {
				return record{line: s.line, err: errBinaryLine}, nil
			}
			return record{line: s.line, data: trimmed}, nil
		}
	}
}

func (s *recordSource) nextDocValue() (record, error) {
	if s.docArray {
		s.docArray = false
		if _, err := s.doc.Token(); err != nil {
			return s.docFailure(err)
		}
		s.inArray = true
	}
	if s.inArray && !s.doc.More() {
		if _, err := s.doc.Token(); err != nil {
			return s.docFailure(err)
		}
		s.inArray = false
	}
	if !s.inArray && !s.doc.More() {
		if _, err := s.doc.Token(); err != nil && err != io.EOF {
			return s.docFailure(err)
		}
		s.done = true
		return record{}, io.EOF
	}
	var raw json.RawMessage
	if err := s.doc.Decode(&raw); err != nil {
		return s.docFailure(err)
	}
	return record{line: s.docLine(s.doc.InputOffset() - int64(len(raw))), data: raw}, nil
}

// docLine converts a byte offset of the document into a line number.
// Offsets only grow, so the bytes before offset are counted once and dropped.
func (s *recordSource) docLine(offset int64) int {
	if n := offset - s.win.start; n > 0 {
		if n > int64(len(s.win.buf)) {
			n = int64(len(s.win.buf))
		}
		s.win.lines += bytes.Count(s.win.buf[:n], []byte("\n"))
		s.win.buf = s.win.buf[n:]
		s.win.start += n
	}
	return s.docBase + s.win.lines
}

// docFailure ends a document: a syntax error is one invalid record, a read
// error ends the input.
func (s *recordSource) docFailure(err error) (record, error) {
	s.done = true
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return record{line: s.docLine(syn.Offset), err: fmt.Errorf("invalid JSON: %v", syn)}, nil
	}
	end := s.docLine(s.win.start + int64(len(s.win.buf)))
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		if readErr := s.readErr(); readErr != nil {
			return record{}, &ReadError{Line: end, Err: readErr}
		}
		return record{line: end, err: errors.New("invalid JSON: unexpected end of input (truncated?)")}, nil
	}
	return record{}, &ReadError{Line: end, Err: err}
}

// readErr is the underlying reader's own failure, if any (not a clean EOF).
func (s *recordSource) readErr() error {
	_, err := s.br.Peek(1)
	if err == nil || err == io.EOF {
		return nil
	}
	return err
}

// lineWindow holds the document bytes not yet counted into line numbers:
// only the bytes of the value being decoded.
type lineWindow struct {
	buf   []byte
	start int64 // document offset of buf[0]
	lines int   // newlines before start
}

// windowReader appends what passes through it to a lineWindow.
type windowReader struct {
	r   io.Reader
	win *lineWindow
}

func (w windowReader) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.win.buf = append(w.win.buf, p[:n]...)
	return n, err
}
