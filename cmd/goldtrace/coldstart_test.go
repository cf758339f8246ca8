package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoCollectionWhileStarting: the garbage collector does not run while
// packages initialise (internal/coldstart holds it off until the command
// knows what it does), and coldstart initialises before the initialisers
// it is there for. Before it, three collections ran during initialisation.
func TestNoCollectionWhileStarting(t *testing.T) {
	cmd := exec.Command(builtBinary(t), "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1,gctrace=1", "GOGC=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("goldtrace --version: %v\n%s", err, out)
	}
	first := map[string]int{}
	lastInit := -1
	lines := strings.Split(string(out), "\n")
	for i, l := range lines {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "init" {
			lastInit = i
			if _, ok := first[f[1]]; !ok {
				first[f[1]] = i
			}
		}
	}
	cs, ok := first["github.com/goldtrace/goldtrace/internal/coldstart"]
	if !ok {
		t.Fatalf("no init of internal/coldstart in the trace:\n%s", out)
	}
	for _, heavy := range []string{"github.com/yuin/goldmark/extension", "github.com/yuin/goldmark/util", "github.com/aws/aws-sdk-go-v2/service/s3/internal/endpoints"} {
		at, ok := first[heavy]
		if !ok {
			t.Errorf("%s is no longer linked: name the largest initialisers that are (GODEBUG=inittrace=1)", heavy)
		} else if at < cs {
			t.Errorf("%s initialises before internal/coldstart", heavy)
		}
	}
	for _, l := range lines[:lastInit+1] {
		if strings.HasPrefix(l, "gc ") {
			t.Errorf("a collection ran during package initialisation: %s", l)
		}
	}
}
