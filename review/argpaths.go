package review

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// ArgPathAgreement is agreement on one argument value, named by its RFC 6901
// JSON Pointer into the first call's arguments, among reviewer pairs that
// chose the same tool. Pairs counts pairs where either label has the path;
// Agreed those where both have it with equal values (numbers by value).
// Path "" is the whole argument value when it is not a JSON object.
type ArgPathAgreement struct {
	Tool    string   `json:"tool"`
	Path    string   `json:"path"`
	Pairs   int      `json:"pairs"`
	Agreed  int      `json:"agreed"`
	Percent *float64 `json:"percent"`
}

// ArgPaths computes per-argument agreement over items' labels: for every
// reviewer pair of an item whose first tools are the same tool, every leaf
// of either first call's arguments (objects are descended, and arrays by
// index; an empty object or array is a leaf) is one comparison. Sorted by
// tool, then path.
func ArgPaths(items [][]Label) []ArgPathAgreement {
	type key struct{ tool, path string }
	tally := map[key]*ArgPathAgreement{}
	for _, ls := range items {
		for i := 0; i < len(ls); i++ {
			for j := i + 1; j < len(ls); j++ {
				tool := ToolClass(ls[i])
				if tool == trace.NoTool || tool != ToolClass(ls[j]) {
					continue
				}
				argsA, argsB := ls[i].Calls[0].Args, ls[j].Calls[0].Args
				if bytes.Equal(argsA, argsB) {
					// The same text: every leaf is in both and equal (a
					// leaf's text is never empty), most pairs in a status.
					for path := range argLeaves(argsA) {
						t := tally[key{tool, path}]
						if t == nil {
							t = &ArgPathAgreement{Tool: tool, Path: path}
							tally[key{tool, path}] = t
						}
						t.Pairs++
						t.Agreed++
					}
					continue
				}
				a, b := argLeaves(argsA), argLeaves(argsB)
				for path, va := range a {
					vb, ok := b[path]
					t := tally[key{tool, path}]
					if t == nil {
						t = &ArgPathAgreement{Tool: tool, Path: path}
						tally[key{tool, path}] = t
					}
					t.Pairs++
					if ok && ArgsEqual(va, vb) {
						t.Agreed++
					}
				}
				for path := range b {
					if _, ok := a[path]; ok {
						continue
					}
					t := tally[key{tool, path}]
					if t == nil {
						t = &ArgPathAgreement{Tool: tool, Path: path}
						tally[key{tool, path}] = t
					}
					t.Pairs++
				}
			}
		}
	}
	out := make([]ArgPathAgreement, 0, len(tally))
	for _, t := range tally {
		t.Percent = ratio(t.Agreed, t.Pairs)
		out = append(out, *t)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Tool != out[j].Tool {
			return out[i].Tool < out[j].Tool
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// argLeaves maps each leaf's JSON Pointer to its JSON text. Missing args
// are {} (no leaves); text that is not JSON, and any value that is not an
// object, is one leaf at "". It walks the text with jsonlex, decoding
// nothing but escaped keys: status computes it for every agreeing pair.
func argLeaves(args json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return out
	}
	if trimmed[0] != '{' {
		out[""] = trimmed
		return out
	}
	l := jsonlex.Lexer{Data: trimmed}
	err := walkLeaves(&l, "", out)
	if err == nil {
		err = l.End()
	}
	if err != nil {
		clear(out)
		out[""] = trimmed
	}
	return out
}

// walkLeaves reads the value that comes next in l, adding its leaves under
// path: objects by key, arrays by index, an empty object or array (and any
// scalar) as a leaf of its own.
func walkLeaves(l *jsonlex.Lexer, path string, out map[string]json.RawMessage) error {
	switch l.Peek() {
	case '{':
		n := 0
		err := l.Object(func(key []byte, escaped bool) error {
			n++
			k := string(key)
			if escaped {
				s, ok := jsonlex.Unquote(key)
				if !ok {
					return fmt.Errorf("bad escape in key %q", key)
				}
				k = s
			}
			return walkLeaves(l, path+"/"+escapePointer(k), out)
		})
		if err == nil && n == 0 && path != "" {
			out[path] = json.RawMessage("{}")
		}
		return err
	case '[':
		n := 0
		err := l.Array(func() error {
			p := path + "/" + strconv.Itoa(n)
			n++
			return walkLeaves(l, p, out)
		})
		if err == nil && n == 0 {
			out[path] = json.RawMessage("[]")
		}
		return err
	}
	raw, err := l.Skip()
	if err != nil {
		return err
	}
	out[path] = raw
	return nil
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
