package main

import (
	"bytes"
	"testing"
)

// TestMeterQuietOffTerminal: progress never reaches a stderr that is not a
// terminal (a pipe, a CI log).
func TestMeterQuietOffTerminal(t *testing.T) {
	var errb bytes.Buffer
	cli := NewCLI(nil, &bytes.Buffer{}, &errb)
	m := newMeter(cli, "verify x", "MB", 100)
	m.Add(50)
	m.Done()
	if errb.Len() != 0 {
		t.Errorf("progress written off a terminal: %q", errb.String())
	}
}
