package render

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/app"
)

func TestImportMeter(t *testing.T) {
	clock := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	// A 1000-byte file written while it is read: done traces of 10 bytes
	// each; its record count is known once it has been read to its end.
	progress := func(done int, known bool) app.ImportProgress {
		p := app.ImportProgress{Records: done, Read: int64(10 * done), Size: 1000, ImportResult: app.ImportResult{Imported: done}}
		if known {
			p.Total = 100
		}
		return p
	}

	t.Run("terminal bar", func(t *testing.T) {
		var out bytes.Buffer
		m := NewImportMeter(&out, "traces.jsonl", true, now)
		clock = clock.Add(10 * time.Second)
		m.Update(progress(25, false))
		clock = clock.Add(10 * time.Second)
		m.Update(progress(50, true))
		frames := strings.Split(out.String(), "\r\033[K")
		want := []string{"",
			"traces.jsonl [#########···························]  25% 25 traces 2/s ETA 0:30",
			"traces.jsonl [##################··················]  50% 50 traces 2/s ETA 0:20"}
		if strings.Join(frames, "\n") != strings.Join(want, "\n") {
			t.Errorf("frames\n%q\nwant\n%q", frames, want)
		}
		for _, f := range frames[1:] {
			if n := len([]rune(f)); n != 79 {
				t.Errorf("bar is %d columns wide: %q", n, f)
			}
		}
		m.Done()
		if !strings.HasSuffix(out.String(), "\r\033[K") {
			t.Error("bar not cleared at the end")
		}
	})

	t.Run("terminal, size unknown (stdin)", func(t *testing.T) {
		var out bytes.Buffer
		m := NewImportMeter(&out, "stdin", true, now)
		clock = clock.Add(4 * time.Second)
		m.Update(app.ImportProgress{Records: 12000, ImportResult: app.ImportResult{Imported: 12000}})
		if got, want := out.String(), "\r\033[Kstdin: 12000 traces written, 3.0k/s"; got != want {
			t.Errorf("line %q, want %q", got, want)
		}
	})

	t.Run("log lines every 10 s", func(t *testing.T) {
		var out bytes.Buffer
		m := NewImportMeter(&out, "t.jsonl", false, now)
		for i := 1; i <= 30; i++ { // a chunk a second for 30 s
			clock = clock.Add(time.Second)
			m.Update(progress(i*3, i > 25))
		}
		m.Update(app.ImportProgress{Records: 91, ImportResult: app.ImportResult{Imported: 91}}) // stdin: no size
		m.Done()
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		want := []string{
			"t.jsonl: 30 traces written (30% of the file read), 3/s, 0:23 left; 30 new, 0 already stored",
			"t.jsonl: 60 traces written (60% of the file read), 3/s, 0:13 left; 60 new, 0 already stored",
			"t.jsonl: 90 of 100 traces written (90%), 3/s, 0:03 left; 90 new, 0 already stored",
		}
		if strings.Join(lines, "\n") != strings.Join(want, "\n") {
			t.Errorf("lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
		}
		if strings.Contains(out.String(), "\r") || strings.Contains(out.String(), "\033") {
			t.Error("terminal control codes in a log")
		}
	})
}
