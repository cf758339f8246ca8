package main

import (
	"debug/buildinfo"
	"strings"
	"testing"
)

// TestHeavyInitialisersNotLinked: modules whose package initialisers cost
// the label screen its first frame stay out of the binary. Go runs the
// initialisers of every linked package, used or not: chroma's lexer and
// style registries took about 12 ms before main, bluemonday and
// golang.org/x/net/html a few more, all for glamour, which the guide pane
// no longer uses (guide renders its markdown on goldmark itself); and
// santhosh-tekuri/jsonschema compiled its metaschemas, about 5 ms and 1.7
// MB, for the tool-argument checks internal/toolschema now does. glamour
// and jsonschema stay test dependencies (of guide and review), as the
// references their replacements are checked against.
func TestHeavyInitialisersNotLinked(t *testing.T) {
	info, err := buildinfo.ReadFile(builtBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range info.Deps {
		for _, heavy := range []string{"github.com/charmbracelet/glamour", "github.com/alecthomas/chroma", "github.com/microcosm-cc/bluemonday",
			"github.com/santhosh-tekuri/jsonschema"} {
			if strings.HasPrefix(dep.Path, heavy) {
				t.Errorf("%s %s is linked into goldtrace", dep.Path, dep.Version)
			}
		}
	}
}
