package score

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/jsonl"
	"github.com/goldtrace/goldtrace/internal/jsonlex"
	"github.com/goldtrace/goldtrace/trace"
)

// PredictionOptions tune ReadPredictions.
type PredictionOptions struct {
	ReadOptions
	// AllowUnknown skips (and counts) predictions whose id is not in the
	// gold instead of failing.
	AllowUnknown bool
	// Index, when set, finds the cases' positions by id (Gold.Index), so
	// that no map of them is built a second time.
	Index *gold.Index
}

// ReadPredictions reads a predictions file (docs/formats.md, "Predictions") into
// one Prediction per case, in the cases' order. A case without a line is
// Missing; a line for an id not in the gold is an error unless
// AllowUnknown (then it is counted in unknown); a repeated id is an error.
func ReadPredictions(ctx context.Context, r io.Reader, name string, cases []Case, opts PredictionOptions) (preds []Prediction, unknown int, err error) {
	lookup := func(id string) (int, bool) { return opts.Index.Lookup(id) }
	if opts.Index == nil || opts.Index.Len() != len(cases) {
		index := make(map[string]int, len(cases))
		for i := range cases {
			index[cases[i].ID] = i
		}
		lookup = func(id string) (int, bool) { i, ok := index[id]; return i, ok }
	}
	preds = make([]Prediction, len(cases))
	seen := make([]int, len(cases))
	err = jsonl.Parallel(ctx, r, name, opts.Progress,
		func(_, _ int, data []byte) (idPrediction, error) {
			return ParsePrediction(data)
		},
		func(line int, ip *idPrediction) error {
			i, ok := lookup(ip.ID)
			if !ok {
				if opts.AllowUnknown {
					unknown++
					return nil
				}
				return fmt.Errorf("prediction id %s is not in the gold (--allow-unknown ignores such lines)", ip.ID)
			}
			if seen[i] > 0 {
				return fmt.Errorf("duplicate prediction for %s (first on line %d)", ip.ID, seen[i])
			}
			seen[i] = line
			preds[i] = ip.Prediction
			return nil
		})
	if err != nil {
		return nil, 0, err
	}
	for i := range preds {
		if seen[i] == 0 {
			preds[i].Missing = true
		}
	}
	return preds, unknown, nil
}

type idPrediction struct {
	ID string
	Prediction
}

// ParsePrediction reads one predictions line: {"id", "tool_calls": [call…]}
// with each call {name, arguments} or OpenAI's {function: {name,
// arguments}}, arguments an object or a JSON string holding one (kept
// verbatim and flagged unparseable when it is not JSON), and an optional
// "error" (null: the call succeeded; a string: it failed). An optional
// "tools" or "catalogue" says which tools the model was offered
// (catalogue.go).
func ParsePrediction(data []byte) (idPrediction, error) {
	var ip idPrediction
	hasID := false
	var shape gold.Shape
	l := jsonlex.Lexer{Data: data}
	err := l.Object(func(key []byte, _ bool) error {
		shape.See(key)
		switch string(key) {
		case "id":
			var err error
			ip.ID, hasID, err = l.StringOrNull("id")
			return err
		case "tool_calls":
			if l.Peek() == 'n' {
				_, err := l.Literal()
				return err
			}
			if l.Peek() != '[' {
				return errors.New("tool_calls must be an array")
			}
			ip.Calls = []trace.Call{}
			return l.Array(func() error { return readPredictedCall(&l, &ip.Prediction) })
		case "tools":
			raw, err := l.Skip()
			if err != nil || string(raw) == "null" {
				return err
			}
			ip.Catalogue, err = predictionTools(raw)
			return err
		case "catalogue":
			raw, err := l.Skip()
			if err != nil || string(raw) == "null" {
				return err
			}
			if err := json.Unmarshal(raw, &ip.Catalogue); err != nil {
				return fmt.Errorf("catalogue must map tool names to hashes: %v", err)
			}
			if ip.Catalogue == nil {
				ip.Catalogue = map[string]string{}
			}
			return nil
		}
		_, err := l.Skip()
		return err
	})
	if err == nil {
		err = l.End()
	}
	if err != nil {
		if errors.Is(err, jsonlex.ErrSyntax) {
			return ip, fmt.Errorf("not a prediction: %v", err)
		}
		return ip, err
	}
	if err := shape.Prediction(); err != nil {
		return ip, err
	}
	if !hasID || ip.ID == "" {
		return ip, errors.New("prediction without id")
	}
	if ip.Calls == nil {
		ip.Calls = []trace.Call{}
	}
	return ip, nil
}

// readPredictedCall reads one element of tool_calls into p.
func readPredictedCall(l *jsonlex.Lexer, p *Prediction) error {
	i := len(p.Calls)
	var id, name, fname string
	var args, fargs []byte
	hasFunction := false
	outcome := int8(CallUnknown)
	readNameArgs := func(name *string, args *[]byte) func(key []byte, _ bool) error {
		return func(key []byte, _ bool) error {
			var err error
			switch string(key) {
			case "name":
				*name, err = callString(l, i, "name")
			case "arguments":
				*args, err = l.Skip()
			default:
				_, err = l.Skip()
			}
			return err
		}
	}
	fields := readNameArgs(&name, &args)
	if l.Peek() != '{' {
		return fmt.Errorf("tool_calls[%d] must be an object", i)
	}
	err := l.Object(func(key []byte, esc bool) error {
		switch string(key) {
		case "id":
			var err error
			id, err = callString(l, i, "id")
			return err
		case "function":
			if l.Peek() == 'n' {
				_, err := l.Literal()
				hasFunction, fname, fargs = false, "", nil
				return err
			}
			hasFunction, fname, fargs = true, "", nil
			return l.Object(readNameArgs(&fname, &fargs))
		case "error":
			switch l.Peek() {
			case 'n':
				outcome = CallOK
				_, err := l.Literal()
				return err
			case '"':
				outcome = CallFailed
				_, _, _, err := l.String()
				return err
			}
			return fmt.Errorf("tool_calls[%d].error must be null or a string", i)
		}
		return fields(key, esc)
	})
	if err != nil {
		return err
	}
	if hasFunction {
		name, args = fname, fargs
	}
	if name == "" {
		return fmt.Errorf("tool_calls[%d] has no name", i)
	}
	call, err := predictedCall(id, name, args)
	if err != nil {
		return fmt.Errorf("tool_calls[%d].arguments: %v", i, err)
	}
	p.Calls = append(p.Calls, call)
	if outcome != CallUnknown {
		for len(p.Errors) <= i {
			p.Errors = append(p.Errors, CallUnknown)
		}
		p.Errors[i] = outcome
	}
	return nil
}

// callString reads tool_calls[i].field, a string or null, naming it only
// in an error (formatting the name for every call cost more than reading
// the string).
func callString(l *jsonlex.Lexer, i int, field string) (string, error) {
	if l.Peek() == 'n' {
		_, err := l.Literal()
		return "", err
	}
	content, esc, ascii, err := l.String()
	if err != nil {
		return "", fmt.Errorf("tool_calls[%d].%s must be a string", i, field)
	}
	return jsonlex.Text(content, esc, ascii), nil
}

// predictedCall builds a call from the arguments' JSON text: null or
// absent is {}; a JSON string holds the arguments' text, which is used when
// it is JSON and otherwise kept verbatim and flagged unparseable.
func predictedCall(id, name string, args []byte) (trace.Call, error) {
	c := trace.Call{ID: id, Name: name}
	switch {
	case len(args) == 0 || string(args) == "null":
		c.Arguments = json.RawMessage(`{}`)
	case args[0] == '"':
		var s string
		if err := json.Unmarshal(args, &s); err != nil {
			return c, err
		}
		if s == "" {
			c.Arguments = json.RawMessage(`{}`)
			break
		}
		inner := jsonlex.Lexer{Data: []byte(s)}
		if _, err := inner.Skip(); err == nil && inner.End() == nil {
			c.Arguments = inner.Data
			break
		}
		b, _ := json.Marshal(s)
		c.Arguments, c.Unparseable = b, true
	default:
		c.Arguments = bytes.Clone(args)
	}
	return c, nil
}

// TracePredictions takes, for each gold case (whose input hash is
// hashes[i]), the calls made at the decision point of r's traces with the
// same input hash (the first one when several share it). Decision points
// that match no case are ignored; cases without one are Missing.
func TracePredictions(r trace.Reader, hashes []string) ([]Prediction, error) {
	want := make(map[string][]int, len(hashes))
	for i, h := range hashes {
		want[h] = append(want[h], i)
	}
	preds := make([]Prediction, len(hashes))
	found := make([]bool, len(hashes))
	for {
		t, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		for _, it := range trace.Items(t) {
			for _, i := range want[it.InputHash] {
				if !found[i] {
					found[i] = true
					preds[i].Calls = it.Observed
				}
			}
		}
	}
	for i := range preds {
		preds[i].Missing = !found[i]
	}
	return preds, nil
}
