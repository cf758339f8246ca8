package coldstart

import (
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"testing"
)

// gcPercentNow reads the collector's setting without changing it.
func gcPercentNow() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// TestOffUntilResumed: the collector is off from package initialisation
// until Resume, which restores what GOGC asked for (run in a child
// process per GOGC value, since Resume acts once per process).
func TestOffUntilResumed(t *testing.T) {
	if want := os.Getenv("COLDSTART_WANT"); want != "" {
		if resumed.Load() {
			t.Skip("the backstop resumed the collector before the test ran")
		}
		if got := gcPercentNow(); got != -1 {
			t.Fatalf("before Resume the collector's percentage is %d, want -1 (off)", got)
		}
		Resume()
		Resume()
		if got := strconv.Itoa(gcPercentNow()); got != want {
			t.Fatalf("after Resume with GOGC=%q the percentage is %s, want %s", os.Getenv("GOGC"), got, want)
		}
		return
	}
	for _, tt := range []struct{ gogc, want string }{{"", "100"}, {"50", "50"}, {"off", "-1"}} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestOffUntilResumed$", "-test.count=1")
		cmd.Env = append(os.Environ(), "COLDSTART_WANT="+tt.want, "GOGC="+tt.gogc)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOGC=%q: %v\n%s", tt.gogc, err, out)
		}
	}
}
