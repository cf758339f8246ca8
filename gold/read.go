package gold

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/goldtrace/goldtrace/internal/jsonl"
	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// The gold record's reader: lines decoded in parallel and without
// reflection (jsonlex), only the fields asked for. Values are kept as their
// JSON text (arguments are not re-encoded). It accepts what the format
// allows, not only canonical lines: dataset.Verify is what checks a file
// is canonical.

// Fields name the parts of a record a reader decodes besides its core (id,
// input.context, available_tools, expected_calls, acceptable): scoring
// reads only what it needs.
type Fields uint8

// The optional parts of a record.
const (
	FieldObserved Fields = 1 << iota // observed_calls
	FieldMessages                    // input.messages
	FieldNotes                       // rationale and provenance
	// FieldFirstCall: expected_tool and expected_args as written. They
	// repeat the first expected call, so without it they are kept only
	// for a record that has no expected_calls (ExpectedList reads them).
	FieldFirstCall
	AllFields = FieldObserved | FieldMessages | FieldNotes | FieldFirstCall
)

// ReadOptions tune Read.
type ReadOptions struct {
	Fields Fields
	// Progress, when set, is called now and then with the lines read so far.
	Progress func(lines int)
}

// Read reads a gold dataset file, calling each with every record in file
// order (never concurrently). A record's id must be present and unique;
// expected calls must Check. name is what errors cite ("NAME:LINE:
// problem"). Records with identical available_tools or metadata share one
// decoded copy, so memory stays flat on large datasets.
func Read(ctx context.Context, r io.Reader, name string, opts ReadOptions, each func(line int, rec *Record) error) error {
	return ReadAs(ctx, r, name, opts, func(rec Record) Record { return rec }, func(rec *Record) string { return rec.ID }, each)
}

// ReadAs is Read with each record turned into a T by as, on the goroutine
// that parsed it: a reader that keeps a part of each record holds only
// that part in flight. id gives a T's record id.
func ReadAs[T any](ctx context.Context, r io.Reader, name string, opts ReadOptions, as func(Record) T, id func(*T) string, each func(line int, v *T) error) error {
	_, err := ReadIndexed(ctx, r, name, opts, as, id, each)
	return err
}

// ReadIndexed is ReadAs, and also returns the index it checks that ids
// are unique with, for a reader that looks records up by id afterwards.
func ReadIndexed[T any](ctx context.Context, r io.Reader, name string, opts ReadOptions, as func(Record) T, id func(*T) string, each func(line int, v *T) error) (*Index, error) {
	interns := make([]*Interner, jsonl.Workers())
	scratch := make([]Record, len(interns)) // one per worker: a Record is large, and parsing into it keeps it off the heap
	for i := range interns {
		interns[i] = NewInterner()
	}
	index := &Index{}
	err := jsonl.Parallel(ctx, r, name, opts.Progress,
		func(w, line int, data []byte) (T, error) {
			rec := &scratch[w]
			*rec = Record{}
			if err := parseRecord(data, interns[w], opts.Fields, rec); err != nil {
				var zero T
				return zero, err
			}
			return as(*rec), nil
		},
		func(line int, v *T) error {
			key := id(v)
			if first, dup := index.add(key, line); dup {
				return fmt.Errorf("duplicate id %s (first on line %d)", key, first)
			}
			return each(line, v)
		})
	return index, err
}

// Interner shares decoded tool lists and metadata between gold records
// with the same bytes (the records of one trace carry the same ones), so
// they get one value. One per goroutine.
type Interner struct {
	tools map[string][]trace.Tool
	metas map[string]map[string]string
	cats  map[string]map[string]string
	// The last distinct texts seen and their values: a record usually
	// carries the same tools and metadata as the one before, and comparing
	// bytes is cheaper than lexing them again.
	lastTools, lastMeta []byte
	lastToolsV          []trace.Tool
	lastMetaV           map[string]string
}

// NewInterner returns an empty Interner.
func NewInterner() *Interner {
	return &Interner{tools: map[string][]trace.Tool{}, metas: map[string]map[string]string{}, cats: map[string]map[string]string{}}
}

// Catalogue decodes a record's catalogue (tool name → hash; absent or
// null: none), once per distinct text.
func (in *Interner) Catalogue(raw []byte) (map[string]string, error) { return intern(in.cats, raw) }

// Tools decodes a record's available_tools (absent or null: none) in any
// shape trace.DecodeTools reads (OpenAI's {"type":"function",…} too; never
// a tool without a name), once per distinct text.
func (in *Interner) Tools(raw []byte) ([]trace.Tool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if v, ok := in.tools[string(raw)]; ok {
		return v, nil
	}
	v, err := trace.DecodeTools(raw, "available_tools")
	if err != nil {
		return nil, err
	}
	in.tools[string(raw)] = v
	return v, nil
}

// readTools reads available_tools (Tools), the same text as the last one
// without lexing it again.
func (in *Interner) readTools(l *jsonlex.Lexer) ([]trace.Tool, error) {
	return readAgain(l, &in.lastTools, &in.lastToolsV, '[', in.Tools)
}

// readMetadata reads a metadata object (Metadata), the same text as the
// last one without lexing it again.
func (in *Interner) readMetadata(l *jsonlex.Lexer) (map[string]string, error) {
	return readAgain(l, &in.lastMeta, &in.lastMetaV, '{', in.Metadata)
}

// readAgain reads the value that comes next with decode, unless its text
// is *last: then it is *lastV. A value that opens with open (an array or
// an object) becomes the last one.
func readAgain[T any](l *jsonlex.Lexer, last *[]byte, lastV *T, open byte, decode func([]byte) (T, error)) (T, error) {
	if sameNext(l, *last) {
		return *lastV, nil
	}
	raw, err := l.Skip()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := decode(raw)
	if err == nil && len(raw) > 0 && raw[0] == open {
		*last, *lastV = append((*last)[:0], raw...), v
	}
	return v, err
}

// sameNext moves l past the value that comes next when its text starts
// with last, a whole array or object read before: such a value ends where
// its closing bracket does, so it is last itself.
func sameNext(l *jsonlex.Lexer, last []byte) bool {
	l.SkipSpace()
	if len(last) == 0 || !bytes.HasPrefix(l.Data[l.Pos:], last) {
		return false
	}
	l.Pos += len(last)
	return true
}

// Metadata decodes a metadata object (absent or null: none), once per
// distinct text.
func (in *Interner) Metadata(raw []byte) (map[string]string, error) { return intern(in.metas, raw) }

func intern[T any](seen map[string]T, raw []byte) (T, error) {
	var zero T
	if len(raw) == 0 || string(raw) == "null" {
		return zero, nil
	}
	if v, ok := seen[string(raw)]; ok {
		return v, nil
	}
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return zero, err
	}
	seen[string(raw)] = v
	return v, nil
}

// ParseRecord decodes one gold record line: the core fields and the parts
// fields names. Nothing of data is kept (it may be reused). A plain exact
// rule of an argument the call gives says what no rule says, so it is left
// out of ArgRules (canonical gold spells one out for every argument, and
// most calls then need no map at all). A record with only
// expected_tool/expected_args keeps them as they are: ExpectedList reads
// them as one call.
func ParseRecord(data []byte, in *Interner, fields Fields) (Record, error) {
	var r Record
	err := parseRecord(data, in, fields, &r)
	return r, err
}

// parseRecord is ParseRecord into r (zero). It is long because it is one
// switch over the record's members, each a few lines, in the lexer's
// single pass.
func parseRecord(data []byte, in *Interner, fields Fields, r *Record) error {
	var expTool string
	var hasExpTool bool
	var expArgs []byte // a slice of data until it is kept
	var shape Shape
	l := jsonlex.Lexer{Data: data}
	err := l.Object(func(key []byte, _ bool) error {
		var err error
		shape.See(key)
		switch string(key) {
		case "id":
			r.ID, _, err = l.StringOrNull("id")
		case "input":
			err = readInput(&l, r, in, fields)
		case "available_tools":
			r.AvailableTools, err = in.readTools(&l)
		case "catalogue":
			var raw []byte
			if raw, err = l.Skip(); err == nil {
				if r.Catalogue, err = in.Catalogue(raw); err != nil {
					err = fmt.Errorf("catalogue: want an object of tool name → hash: %w", err)
				}
			}
		case "expected_tool":
			expTool, hasExpTool, err = l.StringOrNull("expected_tool")
		case "expected_args":
			var raw []byte
			if raw, err = l.Skip(); err == nil && string(raw) != "null" {
				expArgs = raw
			}
		case "expected_calls":
			r.ExpectedCalls, err = readCallList(&l, "expected_calls")
		case "acceptable":
			r.Acceptable, err = readAcceptable(&l)
		case "observed_calls":
			if fields&FieldObserved == 0 {
				_, err = l.Skip()
				break
			}
			r.ObservedCalls, err = readObserved(&l)
		case "rationale":
			if fields&FieldNotes == 0 {
				_, err = l.Skip()
				break
			}
			r.Rationale, _, err = l.StringOrNull("rationale")
		case "provenance":
			if fields&FieldNotes == 0 || l.Peek() == 'n' {
				_, err = l.Skip()
				break
			}
			err = readProvenance(&l, &r.Provenance)
		default:
			_, err = l.Skip()
		}
		return err
	})
	if err == nil {
		err = l.End()
	}
	if err != nil {
		if errors.Is(err, jsonlex.ErrSyntax) {
			return fmt.Errorf("not a gold record: %v", err)
		}
		return err
	}
	if err := shape.Gold(); err != nil {
		return err
	}
	if r.ID == "" {
		return errors.New("gold record without id")
	}
	if fields&FieldFirstCall != 0 || len(r.ExpectedCalls) == 0 {
		if hasExpTool {
			r.ExpectedTool = &expTool
		}
		r.ExpectedArgs = clone(expArgs)
	}
	if fields&FieldObserved != 0 && r.ObservedCalls == nil {
		r.ObservedCalls = []ObservedCall{}
	}
	for li := -1; li < len(r.Acceptable); li++ {
		list := r.ExpectedCalls
		if li >= 0 {
			list = r.Acceptable[li]
		}
		for i := range list {
			if err := list[i].Check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// readInput reads input: its context, and its messages when fields asks.
func readInput(l *jsonlex.Lexer, r *Record, in *Interner, fields Fields) error {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return err
	}
	return l.Object(func(key []byte, _ bool) error {
		switch {
		case string(key) == "messages" && fields&FieldMessages != 0:
			raw, err := l.Skip()
			if err == nil && string(raw) != "null" {
				if err = json.Unmarshal(raw, &r.Input.Messages); err != nil {
					return fmt.Errorf("input.messages: %v", err)
				}
			}
			return err
		case string(key) == "context" && l.Peek() != 'n':
			return readContext(l, &r.Input.Context, in)
		}
		_, err := l.Skip()
		return err
	})
}

// readContext reads input.context: trace_id, turn, metadata.
func readContext(l *jsonlex.Lexer, c *InputContext, in *Interner) error {
	return l.Object(func(key []byte, _ bool) error {
		switch string(key) {
		case "trace_id":
			var err error
			c.TraceID, _, err = l.StringOrNull("input.context.trace_id")
			return err
		case "turn":
			if l.Peek() == 'n' {
				_, err := l.Literal()
				return err
			}
			lit, err := l.Number()
			if err != nil {
				return errors.New("input.context.turn must be an integer")
			}
			if c.Turn, err = strconv.Atoi(string(lit)); err != nil {
				return fmt.Errorf("input.context.turn %s is not an integer", lit)
			}
			return nil
		case "metadata":
			var err error
			if c.Metadata, err = in.readMetadata(l); err != nil && !errors.Is(err, jsonlex.ErrSyntax) {
				return fmt.Errorf("input.context.metadata: %v", err)
			}
			return err
		}
		_, err := l.Skip()
		return err
	})
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
}

// readAcceptable reads [[call…]…] or null.
func readAcceptable(l *jsonlex.Lexer) ([][]ExpectedCall, error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return nil, err
	}
	var out [][]ExpectedCall
	err := l.Array(func() error {
		list, err := readCallList(l, "acceptable")
		out = append(out, list)
		return err
	})
	return out, err
}

// readCallList reads [{"tool", "args", "arg_rules"}…] or null.
func readCallList(l *jsonlex.Lexer, what string) ([]ExpectedCall, error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return nil, err
	}
	list := []ExpectedCall{}
	var rules []namedRule
	err := l.Array(func() error {
		var e ExpectedCall
		rules = rules[:0]
		err := l.Object(func(key []byte, _ bool) error {
			var err error
			switch string(key) {
			case "tool":
				e.Tool, _, err = l.StringOrNull(what + ".tool")
			case "args":
				var raw []byte
				if raw, err = l.Skip(); err == nil {
					e.Args = clone(raw)
				}
			case "arg_rules":
				rules, err = readRules(l, rules[:0])
			default:
				_, err = l.Skip()
			}
			return err
		})
		if err == nil {
			e.ArgRules = keepRules(e.Args, rules)
		}
		list = append(list, e)
		return err
	})
	return list, err
}

type namedRule struct {
	key  string
	rule ArgRule
}

// keepRules builds the arg_rules map, leaving out the plain exact rules of
// arguments the call gives.
func keepRules(args []byte, rules []namedRule) map[string]ArgRule {
	var out map[string]ArgRule
	for _, nr := range rules {
		r := nr.rule
		if (r.Match == "" || r.Match == MatchExact) && !r.Optional && len(r.AnyOf) == 0 && !IsPointer(nr.key) && hasMember(args, nr.key) {
			continue
		}
		if out == nil {
			out = make(map[string]ArgRule, len(rules))
		}
		out[nr.key] = r
	}
	return out
}

// hasMember reports whether the JSON object args has a member named key.
func hasMember(args []byte, key string) bool {
	l := jsonlex.Lexer{Data: args}
	if l.Peek() != '{' {
		return false
	}
	found := false
	_ = l.Object(func(k []byte, esc bool) error {
		if !found && jsonlex.Text(k, esc, false) == key {
			found = true
		}
		_, err := l.Skip()
		return err
	})
	return found
}

// readRules reads {"ARG": {"match", "optional", "any_of"}…} or null,
// appending to rules.
func readRules(l *jsonlex.Lexer, rules []namedRule) ([]namedRule, error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return rules, err
	}
	err := l.Object(func(key []byte, esc bool) error {
		var r ArgRule
		err := l.Object(func(field []byte, _ bool) error {
			switch string(field) {
			case "match":
				var err error
				r.Match, _, err = l.StringOrNull("arg_rules match")
				return err
			case "optional":
				lit, err := l.Literal()
				if err != nil || string(lit) == "null" {
					return errors.New("arg_rules optional must be true or false")
				}
				r.Optional = string(lit) == "true"
				return nil
			case "any_of":
				if l.Peek() == 'n' {
					_, err := l.Literal()
					return err
				}
				return l.Array(func() error {
					raw, err := l.Skip()
					r.AnyOf = append(r.AnyOf, clone(raw))
					return err
				})
			}
			_, err := l.Skip()
			return err
		})
		k := jsonlex.Text(key, esc, false)
		for i := range rules {
			if rules[i].key == k { // a repeated key: the last one wins
				rules = append(rules[:i], rules[i+1:]...)
				break
			}
		}
		rules = append(rules, namedRule{k, r})
		return err
	})
	return rules, err
}

// readObserved reads observed_calls: [{"tool", "args", "unparseable"}…].
func readObserved(l *jsonlex.Lexer) ([]ObservedCall, error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return nil, err
	}
	calls := []ObservedCall{}
	err := l.Array(func() error {
		var c ObservedCall
		err := l.Object(func(key []byte, _ bool) error {
			var err error
			switch string(key) {
			case "tool":
				c.Tool, _, err = l.StringOrNull("observed_calls.tool")
			case "args":
				var raw []byte
				if raw, err = l.Skip(); err == nil {
					c.Args = clone(raw)
				}
			case "unparseable":
				var lit []byte
				lit, err = l.Literal()
				c.Unparseable = string(lit) == "true"
			default:
				_, err = l.Skip()
			}
			return err
		})
		calls = append(calls, c)
		return err
	})
	return calls, err
}

// readProvenance reads {"status", "reviewers", "adjudicator",
// "guide_version"}.
func readProvenance(l *jsonlex.Lexer, p *Provenance) error {
	return l.Object(func(key []byte, _ bool) error {
		var err error
		switch string(key) {
		case "status":
			p.Status, _, err = l.StringOrNull("provenance.status")
		case "adjudicator":
			var adj string
			var ok bool
			if adj, ok, err = l.StringOrNull("provenance.adjudicator"); ok {
				p.Adjudicator = &adj
			}
		case "guide_version":
			p.GuideVersion, _, err = l.StringOrNull("provenance.guide_version")
		case "reviewers":
			p.Reviewers = nil
			if l.Peek() == 'n' {
				_, err = l.Literal()
				break
			}
			p.Reviewers = []string{}
			err = l.Array(func() error {
				name, _, err := l.StringOrNull("provenance.reviewers")
				p.Reviewers = append(p.Reviewers, name)
				return err
			})
		default:
			_, err = l.Skip()
		}
		return err
	})
}
