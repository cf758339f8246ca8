package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/goldtrace/goldtrace/internal/input"
)

// Import formats (goldtrace import --format).
const (
	FormatAuto          = "auto"
	FormatTrace         = "trace"
	FormatOpenAI        = "openai"
	FormatAnthropic     = "anthropic"
	FormatOTLP          = "otlp"
	FormatOpenInference = "openinference"
	FormatResponses     = "openai-responses"
	FormatGemini        = "gemini"
	FormatBedrock       = "bedrock"
)

// Formats lists the accepted format names, auto first.
var Formats = []string{FormatAuto, FormatTrace, FormatOpenAI, FormatResponses, FormatAnthropic, FormatGemini,
	FormatBedrock, FormatOTLP, FormatOpenInference, FormatLangSmith, FormatLangfuse, FormatBraintrust, FormatMLflow}

// result is one trace, or one invalid record, produced by a decoder.
type result struct {
	line int
	t    Trace
	err  error
	// invalidUTF8: the record held bytes that are not UTF-8, which
	// decoding replaced with U+FFFD.
	invalidUTF8 bool
	// toolsValid: t.Tools are known to pass validateTools.
	toolsValid bool
}

func errResult(line int, err error) []result { return []result{{line: line, err: err}} }

// decoder turns the JSON records of one format into traces. Formats whose
// traces span several records (OTel spans) hold them until flush.
type decoder interface {
	record(line int, data []byte) []result
	flush() []result
}

func newDecoder(format string) (decoder, error) {
	cache := schemaCache{}
	switch format {
	case FormatTrace:
		return &canonicalDecoder{cache: cache}, nil
	case FormatOpenAI:
		return &providerDecoder{cache: cache, want: FormatOpenAI}, nil
	case FormatAnthropic, FormatResponses, FormatGemini, FormatBedrock:
		return &providerDecoder{cache: cache, want: format}, nil
	case FormatOTLP:
		return newSpanDecoder(cache, FormatOTLP), nil
	case FormatOpenInference:
		return newSpanDecoder(cache, FormatOpenInference), nil
	case FormatLangSmith, FormatLangfuse, FormatBraintrust, FormatMLflow:
		return newGroupDecoder(format, cache), nil
	case FormatAuto, "":
		return &autoDecoder{cache: cache}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// streamReader is the Reader of every format: records from a recordSource,
// decoded, normalised and validated one at a time.
type streamReader struct {
	src     *recordSource
	dec     decoder
	queue   []result
	line    int // line of the record the last result came from
	flushed bool
	err     error

	replacedUTF8 int
}

// NewReader reads traces of the given format from r. Gzip input is
// recognised by its magic bytes; FormatAuto picks the format from the first
// record that is a JSON object.
func NewReader(r io.Reader, format string) (Reader, error) {
	dec, err := newDecoder(format)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReader(r)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, &ReadError{Line: 1, Err: fmt.Errorf("gzip: %w", err)}
		}
		r = gz
	} else {
		r = br
	}
	src, err := newRecordSource(r)
	if err != nil {
		return nil, err
	}
	return &streamReader{src: src, dec: dec}, nil
}

// OpenFile opens path ("-" is stdin) as a Reader of the given format. The
// Closer closes the file (it does nothing for stdin).
func OpenFile(path, format string, stdin io.Reader) (Reader, io.Closer, error) {
	f, _, err := input.Open(path, stdin)
	if err != nil {
		return nil, nil, err
	}
	r, err := NewReader(f, format)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return r, f, nil
}

// Next implements Reader.
func (s *streamReader) Next() (Trace, error) {
	for len(s.queue) == 0 {
		if s.err != nil {
			return Trace{}, s.err
		}
		if s.flushed {
			return Trace{}, io.EOF
		}
		rec, err := s.src.next()
		switch {
		case err == io.EOF:
			s.queue = s.dec.flush()
			s.flushed = true
		case err != nil:
			var re *ReadError
			if !errors.As(err, &re) {
				err = &ReadError{Line: s.src.line, Err: err}
			}
			s.err = err
			// Traces still held by the decoder are not returned: the input
			// is broken, the caller aborts it.
		case rec.err != nil:
			s.queue = errResult(rec.line, rec.err)
		default:
			s.queue = s.dec.record(rec.line, rec.data)
			if !utf8.Valid(rec.data) {
				for i := range s.queue {
					s.queue[i].invalidUTF8 = true
				}
			}
		}
	}
	r := s.queue[0]
	s.queue = s.queue[1:]
	s.line = r.line
	if r.err != nil {
		return Trace{}, &RecordError{Line: r.line, Err: r.err}
	}
	if r.invalidUTF8 && strings.ContainsRune(r.t.ID, utf8.RuneError) {
		// Replacing would make distinct ids equal: refuse the record.
		return Trace{}, &RecordError{Line: r.line, Err: fmt.Errorf("trace id %q is not valid UTF-8", r.t.ID)}
	}
	t, err := finish(r.t, r.toolsValid)
	if err != nil {
		return Trace{}, &RecordError{Line: r.line, Err: err}
	}
	if r.invalidUTF8 {
		s.replacedUTF8++
	}
	return t, nil
}

// ReplacedUTF8 is how many of the traces returned so far came from records
// holding bytes that are not UTF-8, each replaced with U+FFFD.
func (s *streamReader) ReplacedUTF8() int { return s.replacedUTF8 }

// Line is the line (of the input, 1-based) where the record of the trace or
// RecordError last returned by Next starts.
func (s *streamReader) Line() int { return s.line }

// finish gives a trace without an id its derived id, makes empty lists
// non-nil, and validates it (its tools only when toolsValid is false).
func finish(t Trace, toolsValid bool) (Trace, error) {
	if t.Tools == nil {
		t.Tools = []Tool{}
	}
	if len(t.Messages) == 0 {
		return Trace{}, errors.New("trace has no messages")
	}
	if allEmpty(t.Messages) {
		// Never an empty trace: its content was in a shape not understood
		// (or not captured), and every decision point would be "(none)".
		return Trace{}, errors.New("every message decoded to nothing (content in an unrecognised shape?)")
	}
	if y := t.Timestamp.Year(); y < 0 || y > 9999 {
		// Its JSON, and so the trace's content hash, cannot be written.
		return Trace{}, fmt.Errorf("timestamp %s is out of range (years 0 to 9999)", t.Timestamp.Format(time.RFC3339Nano))
	}
	if t.ID == "" {
		id, err := DeriveID(t)
		if err != nil {
			return Trace{}, err
		}
		t.ID = id
	}
	if toolsValid {
		return t, t.validateMessages()
	}
	return t, t.Validate()
}

func allEmpty(msgs []Message) bool {
	for _, m := range msgs {
		if strings.TrimSpace(m.Content) != "" || len(m.ToolCalls) > 0 {
			return false
		}
	}
	return true
}
