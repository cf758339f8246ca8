package render

import (
	"testing"
	"time"
)

func TestMeterLine(t *testing.T) {
	start := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	m := &Meter{what: "verify big.jsonl", unit: "MB", total: 1000e6, start: start}
	m.done = 250e6
	if got, want := m.line(start.Add(10*time.Second)), "verify big.jsonl:  25% (250/1000 MB), ETA 30s"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	m.total = 0
	if got, want := m.line(start.Add(10*time.Second)), "verify big.jsonl: 250 MB"; got != want {
		t.Errorf("unknown total: got %q, want %q", got, want)
	}
	items := &Meter{what: "export support: gold items read", unit: "items", start: start, done: 1200}
	if got, want := items.line(start), "export support: gold items read: 1200 items"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
