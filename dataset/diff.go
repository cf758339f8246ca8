package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// FieldChange is one JSON value that differs between two records of an item.
// From or To is absent when the value was added or removed.
type FieldChange struct {
	Path string          `json:"path"` // e.g. expected_calls[0].args.order_id
	From json.RawMessage `json:"from,omitempty"`
	To   json.RawMessage `json:"to,omitempty"`
}

// ItemChange is an item present in both versions with a different record.
type ItemChange struct {
	ID     string        `json:"id"`
	Kinds  []string      `json:"kinds"` // tool, calls, args, rules, acceptable, rationale, provenance, tools, input, observed
	Fields []FieldChange `json:"fields"`
}

// Diff is what changed between two versions of a dataset.
type Diff struct {
	Added   []string     `json:"added"`
	Removed []string     `json:"removed"`
	Changed []ItemChange `json:"changed"`
}

// Source is one side of a diff: a name for messages and the JSONL bytes.
type Source struct {
	Name string
	R    io.Reader
}

// DiffSources compares two canonical dataset files (sorted by id) in one
// streaming pass; only the lines that differ are decoded.
func DiffSources(a, b Source) (Diff, error) {
	d := Diff{Added: []string{}, Removed: []string{}, Changed: []ItemChange{}}
	ra, rb := newIDLines(a), newIDLines(b)
	la, err := ra.next()
	if err != nil {
		return d, err
	}
	lb, err := rb.next()
	if err != nil {
		return d, err
	}
	for la != nil || lb != nil {
		switch {
		case lb == nil || (la != nil && la.id < lb.id):
			d.Removed = append(d.Removed, la.id)
			if la, err = ra.next(); err != nil {
				return d, err
			}
		case la == nil || lb.id < la.id:
			d.Added = append(d.Added, lb.id)
			if lb, err = rb.next(); err != nil {
				return d, err
			}
		default:
			if !bytes.Equal(la.bytes, lb.bytes) {
				fields, err := compareLines(la.bytes, lb.bytes)
				if err != nil {
					return d, fmt.Errorf("%s:%d / %s:%d: %w", a.Name, la.n, b.Name, lb.n, err)
				}
				if len(fields) > 0 { // else the record formats alone differ
					d.Changed = append(d.Changed, ItemChange{ID: la.id, Kinds: kindsOf(fields), Fields: fields})
				}
			}
			if la, err = ra.next(); err != nil {
				return d, err
			}
			if lb, err = rb.next(); err != nil {
				return d, err
			}
		}
	}
	return d, nil
}

// idLine is one line of a dataset file with its id.
type idLine struct {
	n     int
	id    string
	bytes []byte
}

type idLines struct {
	name string
	br   *bufio.Reader
	n    int
	prev string
}

func newIDLines(s Source) *idLines {
	return &idLines{name: s.Name, br: bufio.NewReaderSize(s.R, 1<<20)}
}

// next returns the next line, nil at the end.
func (r *idLines) next() (*idLine, error) {
	line, err := r.br.ReadBytes('\n')
	if errors.Is(err, io.EOF) && len(line) == 0 {
		return nil, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: read: %w", r.name, err)
	}
	r.n++
	line = bytes.TrimSuffix(line, []byte("\n"))
	var head struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(line, &head); err != nil || head.ID == "" {
		return nil, fmt.Errorf("%s:%d: not a gold record (no id)", r.name, r.n)
	}
	if head.ID <= r.prev {
		return nil, fmt.Errorf("%s:%d: id %s is not after %s: lines must be sorted by id without duplicates", r.name, r.n, head.ID, r.prev)
	}
	r.prev = head.ID
	return &idLine{n: r.n, id: head.ID, bytes: line}, nil
}

// CompareRecords lists the values that differ between two records of one
// item.
func CompareRecords(a, b gold.Record) ([]FieldChange, error) {
	la, err := EncodeRecord(a)
	if err != nil {
		return nil, err
	}
	lb, err := EncodeRecord(b)
	if err != nil {
		return nil, err
	}
	return compareLines(la, lb)
}

func compareLines(a, b []byte) ([]FieldChange, error) {
	va, err := decodeAny(a)
	if err != nil {
		return nil, err
	}
	vb, err := decodeAny(b)
	if err != nil {
		return nil, err
	}
	var out []FieldChange
	walk("", va, vb, &out)
	// A record of gold.RecordFormat2 has a catalogue where one of
	// RecordFormat1 has none: the same gold, written in two formats (the
	// tools, which the catalogue hashes, are compared as themselves).
	out = slices.DeleteFunc(out, func(f FieldChange) bool { return f.Path == "catalogue" && (f.From == nil || f.To == nil) })
	return out, nil
}

func decodeAny(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	return v, nil
}

// walk appends to out every leaf (or whole subtree whose type changed) that
// differs between a and b. expected_args mirrors expected_calls[0].args and
// expected_calls[0].tool mirrors expected_tool, so those are not repeated.
func walk(path string, a, b any, out *[]FieldChange) {
	if path == "expected_args" || strings.HasPrefix(path, "expected_args.") || path == "expected_calls[0].tool" {
		return
	}
	switch ta := a.(type) {
	case map[string]any:
		if tb, ok := b.(map[string]any); ok {
			keys := map[string]bool{}
			for k := range ta {
				keys[k] = true
			}
			for k := range tb {
				keys[k] = true
			}
			for _, k := range sortedKeys(keys) {
				child := k
				switch {
				case strings.ContainsAny(k, "./[]\"") || k == "":
					// A JSON-Pointer rule key, or a key a dotted path would
					// misread: quoted.
					child = path + "[" + strconv.Quote(k) + "]"
				case path != "":
					child = path + "." + k
				}
				va, inA := ta[k]
				vb, inB := tb[k]
				switch {
				case !inA:
					*out = append(*out, FieldChange{Path: child, To: rawOf(vb)})
				case !inB:
					*out = append(*out, FieldChange{Path: child, From: rawOf(va)})
				default:
					walk(child, va, vb, out)
				}
			}
			return
		}
	case []any:
		if tb, ok := b.([]any); ok {
			for i := 0; i < len(ta) || i < len(tb); i++ {
				child := path + "[" + strconv.Itoa(i) + "]"
				switch {
				case i >= len(ta):
					*out = append(*out, FieldChange{Path: child, To: rawOf(tb[i])})
				case i >= len(tb):
					*out = append(*out, FieldChange{Path: child, From: rawOf(ta[i])})
				default:
					walk(child, ta[i], tb[i], out)
				}
			}
			return
		}
	}
	ra, rb := rawOf(a), rawOf(b)
	if !bytes.Equal(ra, rb) {
		*out = append(*out, FieldChange{Path: path, From: ra, To: rb})
	}
}

func rawOf(v any) json.RawMessage {
	b, err := trace.MarshalCanonical(v)
	if err != nil {
		return json.RawMessage(strconv.Quote(fmt.Sprint(v)))
	}
	return b
}

// kindsOf names the kinds of change, in a fixed order.
func kindsOf(fields []FieldChange) []string {
	order := []string{"tool", "calls", "args", "rules", "acceptable", "rationale", "provenance", "tools", "input", "observed"}
	have := map[string]bool{}
	for _, f := range fields {
		have[kindOf(f.Path)] = true
	}
	out := []string{}
	for _, k := range order {
		if have[k] {
			out = append(out, k)
		}
	}
	return out
}

func kindOf(path string) string {
	switch {
	case path == "expected_tool", strings.HasPrefix(path, "expected_calls[") && strings.HasSuffix(path, "].tool"):
		return "tool"
	case strings.HasPrefix(path, "expected_calls[") && strings.Contains(path, "].args"):
		return "args"
	case strings.HasPrefix(path, "expected_calls[") && strings.Contains(path, "].arg_rules"):
		return "rules"
	case strings.HasPrefix(path, "expected_calls"):
		return "calls"
	case strings.HasPrefix(path, "acceptable"):
		return "acceptable"
	case path == "rationale":
		return "rationale"
	case strings.HasPrefix(path, "provenance"):
		return "provenance"
	case strings.HasPrefix(path, "observed_calls"):
		return "observed"
	case strings.HasPrefix(path, "available_tools"), strings.HasPrefix(path, "catalogue"):
		return "tools" // the tools offered (an item re-reviewed against a newer catalogue)
	}
	return "input"
}
