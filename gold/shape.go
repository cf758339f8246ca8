package gold

import (
	"errors"
	"fmt"
)

// A gold file and a predictions file are both JSON Lines with an id on
// every line, so either one read as the other would score (a predictions
// file read as gold is gold that expects no call anywhere, and a CI gate
// passes on it). The readers (ParseRecord, score's predictions reader) tell
// them apart by the keys a line has (Shape).

// ErrWrongFile is what WrongFileError wraps (errors.Is): a line of one
// kind of file where the other was expected.
var ErrWrongFile = errors.New("wrong kind of file")

// WrongFileError says that a line read as one kind of record looks like
// another: Is "a prediction", "a gold record" or "a trace"; Want what the
// reader wanted; Because the keys that tell.
type WrongFileError struct {
	Is, Want, Because string
}

func (e *WrongFileError) Error() string {
	return fmt.Sprintf("this is %s, not %s (%s)", e.Is, e.Want, e.Because)
}

func (e *WrongFileError) Unwrap() error { return ErrWrongFile }

// Kinds of record a WrongFileError names.
const (
	KindGold       = "a gold record"
	KindPrediction = "a prediction"
	KindTrace      = "a trace"
)

// Shape notes which telling keys a line's top-level object has.
type Shape struct {
	expected   bool // expected_calls or expected_tool: gold answers
	goldOnly   bool // acceptable, available_tools, provenance, expected_args
	toolCalls  bool
	traceShape bool // messages, spans, resourceSpans
	first      string
}

func (s *Shape) See(key []byte) {
	// The switch on string(key) does not copy the key; the few that tell
	// are noted as the constant they equal.
	switch string(key) {
	case "expected_calls", "expected_tool":
		s.expected = true
		s.note(key)
	case "acceptable", "available_tools", "provenance", "expected_args":
		s.goldOnly = true
		s.note(key)
	case "tool_calls":
		s.toolCalls = true
	case "messages", "spans", "resourceSpans":
		s.traceShape = true
		s.note(key)
	}
}

// tellingKeys are the keys note keeps, so that noting one copies nothing.
var tellingKeys = [...]string{"expected_calls", "expected_tool", "acceptable", "available_tools", "provenance", "expected_args", "messages", "spans", "resourceSpans"}

func (s *Shape) note(key []byte) {
	if s.first != "" {
		return
	}
	for _, k := range tellingKeys {
		if string(key) == k {
			s.first = k
			return
		}
	}
}

// Gold checks that a gold line carries a gold answer: expected_calls or
// expected_tool (null when no call is expected).
func (s *Shape) Gold() error {
	switch {
	case s.expected:
		return nil
	case s.toolCalls:
		return &WrongFileError{Is: KindPrediction, Want: KindGold, Because: "it has tool_calls and no expected_calls or expected_tool"}
	case s.traceShape:
		return &WrongFileError{Is: KindTrace, Want: KindGold, Because: "it has " + s.first + " and no expected_calls or expected_tool"}
	}
	return errors.New("not a gold record: it has neither expected_calls nor expected_tool (null when no tool should be called)")
}

// Prediction checks that a predictions line is not a gold record or a
// trace: tool_calls may be absent (no call), but gold answers may not be
// there.
func (s *Shape) Prediction() error {
	switch {
	case s.expected || s.goldOnly:
		return &WrongFileError{Is: KindGold, Want: KindPrediction, Because: "it has " + s.first}
	case s.traceShape && !s.toolCalls:
		return &WrongFileError{Is: KindTrace, Want: KindPrediction, Because: "it has " + s.first + " and no tool_calls; --pred-format reads traces"}
	}
	return nil
}
