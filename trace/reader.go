package trace

import "fmt"

// Reader yields the traces of one input, record by record, so memory does not
// grow with the size of the input.
type Reader interface {
	// Next returns the next trace, io.EOF after the last one, or a
	// *RecordError for one invalid record; reading may continue after a
	// *RecordError. Any other error ends the input.
	Next() (Trace, error)
}

// RecordError is one invalid input record: where it is and what is wrong.
type RecordError struct {
	Line int // 1-based line (JSON Lines) or record number; 0 when unknown
	Err  error
}

func (e *RecordError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %v", e.Line, e.Err)
	}
	return e.Err.Error()
}

func (e *RecordError) Unwrap() error { return e.Err }
