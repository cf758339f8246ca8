package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/store"
)

func TestImportMeter(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	progress := func(done int) store.ImportProgress {
		return store.ImportProgress{Records: done, Total: 1000, ImportResult: store.ImportResult{Imported: done}}
	}

	t.Run("terminal bar", func(t *testing.T) {
		var out bytes.Buffer
		m := newImportMeter(&out, "traces.jsonl", true, now)
		m.update(store.ImportProgress{Checking: true, Records: 5000})
		m.update(progress(0))
		clock = clock.Add(10 * time.Second)
		m.update(progress(250))
		frames := strings.Split(out.String(), "\r\033[K")
		last := frames[len(frames)-1]
		want := "traces.jsonl [#########···························]  25% 250/1000 25/s ETA 0:30"
		if last != want {
			t.Errorf("bar = %q\nwant  %q", last, want)
		}
		if n := len([]rune(last)); n != 79 {
			t.Errorf("bar is %d columns wide", n)
		}
		if !strings.Contains(frames[1], "checking, 5000 records read") {
			t.Errorf("checking frame = %q", frames[1])
		}
		m.done()
		if !strings.HasSuffix(out.String(), "\r\033[K") {
			t.Error("bar not cleared at the end")
		}
	})

	t.Run("log lines every 10 s", func(t *testing.T) {
		var out bytes.Buffer
		m := newImportMeter(&out, "t.jsonl", false, now)
		m.update(progress(0))
		for i := 1; i <= 30; i++ { // a chunk a second for 30 s
			clock = clock.Add(time.Second)
			m.update(progress(i * 10))
		}
		m.done()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(lines) != 3 {
			t.Fatalf("%d lines in 30 s, want 3:\n%s", len(lines), out.String())
		}
		if lines[0] != "t.jsonl: 100 of 1000 traces written (10%), 10/s, 1:30 left; 100 new, 0 already stored" {
			t.Errorf("line = %q", lines[0])
		}
		if strings.Contains(out.String(), "\r") || strings.Contains(out.String(), "\033") {
			t.Error("terminal control codes in a log")
		}
	})
}
