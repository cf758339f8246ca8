package score

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// The scorer's read path: gold records and predictions decoded in parallel
// and without reflection (jsonlex), only the fields scoring needs. Values
// are kept as their JSON text (arguments are not re-encoded); nothing read
// here is ever hashed or exported.

// Gold is a gold dataset as the scorer reads it.
type Gold struct {
	Cases []Case
	// Observed are the production model's calls per case (the records'
	// observed_calls), when ReadGold was asked for them.
	Observed []Prediction
}

// GoldOptions tune ReadGold.
type GoldOptions struct {
	ReadOptions
	// Observed also reads observed_calls (scoring without predictions).
	Observed bool
}

// ReadGold reads a gold dataset file (DESIGN.md "Gold record"; a record
// with only expected_tool/expected_args reads as one expected call). name
// is what errors cite ("NAME:LINE: problem").
func ReadGold(ctx context.Context, r io.Reader, name string, opts GoldOptions) (Gold, error) {
	var g Gold
	workers := max(1, runtime.GOMAXPROCS(0))
	interns := make([]*Interner, workers)
	for i := range interns {
		interns[i] = NewInterner()
	}
	ids := map[string]int{}
	var cases [][]Case // per block of about blockCases, joined once at the end
	var observed [][]Prediction
	const blockCases = 4096
	err := parallelLines(ctx, r, name, opts.ReadOptions,
		func(w, line int, data []byte) (goldLine, error) {
			return parseGoldLine(data, interns[w], opts.Observed)
		},
		func(line int, gl goldLine) error {
			if prev, dup := ids[gl.c.ID]; dup {
				return fmt.Errorf("duplicate id %s (first on line %d)", gl.c.ID, prev)
			}
			ids[gl.c.ID] = line
			if len(cases) == 0 || len(cases[len(cases)-1]) == blockCases {
				cases = append(cases, make([]Case, 0, blockCases))
				observed = append(observed, nil)
			}
			k := len(cases) - 1
			cases[k] = append(cases[k], gl.c)
			if opts.Observed {
				observed[k] = append(observed[k], gl.observed)
			}
			return nil
		})
	if err != nil {
		return g, err
	}
	g.Cases = make([]Case, 0, len(ids))
	for k := range cases {
		g.Cases = append(g.Cases, cases[k]...)
		if opts.Observed {
			g.Observed = append(g.Observed, observed[k]...)
		}
		cases[k], observed[k] = nil, nil
	}
	return g, nil
}

type goldLine struct {
	c        Case
	observed Prediction
}

// Interner shares decoded tool lists and metadata between gold records
// with the same bytes (the records of one trace carry the same ones), so
// they get one value. One per goroutine.
type Interner struct {
	tools map[string][]trace.Tool
	metas map[string]map[string]string
}

// NewInterner returns an empty Interner.
func NewInterner() *Interner {
	return &Interner{tools: map[string][]trace.Tool{}, metas: map[string]map[string]string{}}
}

// Tools decodes a gold record's available_tools (absent or null: none) in
// any shape trace.DecodeTools reads, once per distinct text.
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

// str decodes the string content the lexer returned (as encoding/json).
func str(content []byte, escaped, ascii bool) string {
	if jsonlex.Plain(content, escaped, ascii) {
		return string(content)
	}
	var s string
	quoted := make([]byte, 0, len(content)+2)
	quoted = append(append(append(quoted, '"'), content...), '"')
	_ = json.Unmarshal(quoted, &s) // the lexer has checked it
	return s
}

// stringOrNull reads a string or null ("" and false for null).
func stringOrNull(l *jsonlex.Lexer, what string) (string, bool, error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return "", false, err
	}
	content, esc, ascii, err := l.String()
	if err != nil {
		return "", false, fmt.Errorf("%s must be a string", what)
	}
	return str(content, esc, ascii), true, nil
}

func parseGoldLine(data []byte, in *Interner, withObserved bool) (goldLine, error) {
	var gl goldLine
	c := &gl.c
	var expTool string
	hasExpTool := false
	var expArgs []byte
	var shape recordShape
	l := jsonlex.Lexer{Data: data}
	err := l.Object(func(key []byte, _ bool) error {
		var err error
		shape.see(key)
		switch string(key) {
		case "id":
			c.ID, _, err = stringOrNull(&l, "id")
		case "input":
			err = l.Object(func(key []byte, _ bool) error {
				if string(key) != "context" || l.Peek() == 'n' {
					_, err := l.Skip()
					return err
				}
				return l.Object(func(key []byte, _ bool) error {
					switch string(key) {
					case "trace_id":
						var err error
						c.Trace, _, err = stringOrNull(&l, "input.context.trace_id")
						return err
					case "metadata":
						raw, err := l.Skip()
						if err != nil {
							return err
						}
						if c.Meta, err = in.Metadata(raw); err != nil {
							return fmt.Errorf("input.context.metadata: %v", err)
						}
						return nil
					}
					_, err := l.Skip()
					return err
				})
			})
		case "available_tools":
			var raw []byte
			if raw, err = l.Skip(); err == nil {
				c.Tools, err = in.Tools(raw)
			}
		case "expected_tool":
			expTool, hasExpTool, err = stringOrNull(&l, "expected_tool")
		case "expected_args":
			var raw []byte
			if raw, err = l.Skip(); err == nil && string(raw) != "null" {
				expArgs = raw
			}
		case "expected_calls":
			c.Expected, err = readCallList(&l, "expected_calls")
		case "acceptable":
			c.Acceptable = nil
			if l.Peek() == 'n' {
				_, err = l.Literal()
				break
			}
			err = l.Array(func() error {
				list, err := readCallList(&l, "acceptable")
				c.Acceptable = append(c.Acceptable, list)
				return err
			})
		case "observed_calls":
			if !withObserved {
				_, err = l.Skip()
				break
			}
			gl.observed, err = readObserved(&l)
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
			return gl, fmt.Errorf("not a gold record: %v", err)
		}
		return gl, err
	}
	if err := shape.gold(); err != nil {
		return gl, err
	}
	if c.ID == "" {
		return gl, errors.New("gold record without id")
	}
	if len(c.Expected) == 0 && hasExpTool && expTool != "" {
		c.Expected = []ExpectedCall{{Tool: expTool, Args: clone(expArgs)}}
	}
	if withObserved && gl.observed.Calls == nil {
		gl.observed.Calls = []trace.Call{}
	}
	for _, list := range append([][]ExpectedCall{c.Expected}, c.Acceptable...) {
		for i := range list {
			if err := list[i].check(); err != nil {
				return gl, err
			}
		}
	}
	return gl, nil
}

// check rejects an expected call without a tool, with arguments that are
// not an object, or with a rule that cannot apply.
func (e *ExpectedCall) check() error {
	if e.Tool == "" {
		return errors.New("expected call without a tool name")
	}
	if len(e.Args) > 0 && string(e.Args) != "null" && e.Args[0] != '{' {
		return fmt.Errorf("expected call %s: args must be a JSON object", e.Tool)
	}
	if err := e.CheckArgRules(); err != nil {
		return fmt.Errorf("expected call %w", err)
	}
	return nil
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte(nil), b...)
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
				e.Tool, _, err = stringOrNull(l, what+".tool")
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
// arguments the call gives (canonical gold spells one out for every
// argument): the scorer treats them as it treats no rule, and most calls
// then need no map at all.
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
		if !found && str(k, esc, false) == key {
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
				r.Match, _, err = stringOrNull(l, "arg_rules match")
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
		k := str(key, esc, false)
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
func readObserved(l *jsonlex.Lexer) (Prediction, error) {
	var p Prediction
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return p, err
	}
	p.Calls = []trace.Call{}
	err := l.Array(func() error {
		var c trace.Call
		err := l.Object(func(key []byte, _ bool) error {
			var err error
			switch string(key) {
			case "tool":
				c.Name, _, err = stringOrNull(l, "observed_calls.tool")
			case "args":
				var raw []byte
				if raw, err = l.Skip(); err == nil {
					c.Arguments = clone(raw)
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
		p.Calls = append(p.Calls, c)
		return err
	})
	return p, err
}
