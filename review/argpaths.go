package review

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

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
				a, b := argLeaves(ls[i].Calls[0].Args), argLeaves(ls[j].Calls[0].Args)
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
// object, is one leaf at "".
func argLeaves(args json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 {
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		out[""] = trimmed
		return out
	}
	if _, ok := v.(map[string]any); !ok {
		out[""] = trimmed
		return out
	}
	walkLeaves("", v, out)
	return out
}

func walkLeaves(path string, v any, out map[string]json.RawMessage) {
	switch x := v.(type) {
	case map[string]any:
		if len(x) > 0 || path == "" {
			for k, e := range x {
				walkLeaves(path+"/"+escapePointer(k), e, out)
			}
			return
		}
	case []any:
		if len(x) > 0 {
			for i, e := range x {
				walkLeaves(path+"/"+strconv.Itoa(i), e, out)
			}
			return
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return // json.Number and plain values always marshal
	}
	out[path] = b
}

// escapePointer escapes one JSON Pointer reference token (RFC 6901).
func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}
