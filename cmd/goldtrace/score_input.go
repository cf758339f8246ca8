package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// loadGold reads the gold records named by ref: a dataset JSONL file (.gz
// accepted, "-" for stdin) or NAME@vN from the store. Records come back
// without Input.Messages (scoring never reads the conversation) and records
// with identical available_tools or metadata share one copy, so memory stays
// flat on large datasets.
func loadGold(ctx context.Context, app *App, ref string) ([]dataset.Record, error) {
	recs, _, err := loadGoldRecords(ctx, app, ref, false)
	return recs, err
}

// loadGoldRecords is loadGold; withHashes also returns each record's input
// hash (sha256 of its context and tools, as trace.InputHash computes it).
func loadGoldRecords(ctx context.Context, app *App, ref string, withHashes bool) ([]dataset.Record, []string, error) {
	name, in, closeIn, err := openGold(ctx, app, ref)
	if err != nil {
		return nil, nil, err
	}
	defer closeIn()
	var recs []dataset.Record
	var hashes []string
	ids := map[string]int{}
	interner := dataset.NewInterner()
	err = scanJSONLines(ctx, app, name, in, func(line int, data []byte) error {
		var g dataset.ScoringRecord
		if err := json.Unmarshal(data, &g); err != nil {
			return fmt.Errorf("not a gold record: %v", err)
		}
		if g.ID == "" {
			return errors.New("gold record without id")
		}
		if prev, dup := ids[g.ID]; dup {
			return fmt.Errorf("duplicate id %s (first on line %d)", g.ID, prev)
		}
		ids[g.ID] = line
		r, err := g.Record(interner)
		if err != nil {
			return err
		}
		if err := checkGoldCalls(&r); err != nil {
			return err
		}
		if withHashes {
			var msgs []trace.Message
			if len(g.Input.Messages) > 0 {
				if err := json.Unmarshal(g.Input.Messages, &msgs); err != nil {
					return fmt.Errorf("input.messages: %v", err)
				}
			}
			hashes = append(hashes, trace.InputHash(msgs, r.AvailableTools))
		}
		recs = append(recs, r)
		return nil
	})
	return recs, hashes, err
}

// openGold opens a gold file, or the stored version when ref is NAME@vN and
// no file of that name exists. name is what input errors cite.
func openGold(ctx context.Context, app *App, ref string) (name string, in io.Reader, closeIn func(), err error) {
	dref, isRef, refErr := dataset.ParseRef(ref)
	if _, statErr := os.Stat(ref); statErr == nil || !isRef || ref == "-" {
		in, closeIn, err := openInput(app, ref)
		return ref, in, closeIn, err
	}
	if refErr != nil {
		return "", nil, nil, refErr
	}
	be, who, err := app.ActorCtx(ctx)
	if err != nil {
		return "", nil, nil, err
	}
	_, content, _, err := be.DatasetFiles(ctx, who, dref.Name, dref.Version)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, nil, fmt.Errorf("%s: no such dataset version (goldtrace datasets lists them)", dref)
	}
	if err != nil {
		return "", nil, nil, err
	}
	return dref.String(), bytes.NewReader(content), func() {}, nil
}

// checkGoldCalls rejects gold whose expected arguments are not JSON objects.
func checkGoldCalls(r *dataset.Record) error {
	lists := append([][]score.ExpectedCall{r.ExpectedCalls}, r.Acceptable...)
	for _, list := range lists {
		for _, c := range list {
			if c.Tool == "" {
				return errors.New("expected call without a tool name")
			}
			args := bytes.TrimSpace(c.Args)
			if len(args) > 0 && string(args) != "null" && args[0] != '{' {
				return fmt.Errorf("expected call %s: args must be a JSON object", c.Tool)
			}
			if err := c.CheckArgRules(); err != nil {
				return fmt.Errorf("expected call %w", err)
			}
		}
	}
	return nil
}

// predictionLine is one line of a predictions file (DESIGN.md
// "Predictions"); each call is {name, arguments} or OpenAI's
// {function:{name, arguments}}, arguments an object or a JSON string.
type predictionLine struct {
	ID        *string          `json:"id"`
	ToolCalls []predictionCall `json:"tool_calls"`
}

type predictionCall struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Function  *struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
	Error json.RawMessage `json:"error"` // absent, null (succeeded) or a message (failed)
}

// parsePredictionLine turns one predictions line into an id and calls.
func parsePredictionLine(data []byte) (string, []trace.Call, error) {
	id, p, err := parsePrediction(data)
	return id, p.Calls, err
}

// parsePrediction turns one predictions line into an id and a prediction,
// with each call's outcome when a call carries an "error" key.
func parsePrediction(data []byte) (string, score.Prediction, error) {
	var pl predictionLine
	if err := json.Unmarshal(data, &pl); err != nil {
		return "", score.Prediction{}, fmt.Errorf("not a prediction: %v", err)
	}
	if pl.ID == nil || *pl.ID == "" {
		return "", score.Prediction{}, errors.New("prediction without id")
	}
	var p score.Prediction
	for i, pc := range pl.ToolCalls {
		switch e := bytes.TrimSpace(pc.Error); {
		case len(e) == 0:
			continue
		case string(e) == "null":
			p.Errors = growOutcomes(p.Errors, i, score.CallOK)
		case e[0] == '"':
			p.Errors = growOutcomes(p.Errors, i, score.CallFailed)
		default:
			return "", p, fmt.Errorf("tool_calls[%d].error must be null or a string", i)
		}
	}
	calls, err := predictionCalls(pl.ToolCalls)
	p.Calls = calls
	return *pl.ID, p, err
}

func growOutcomes(out []int8, i int, v int8) []int8 {
	for len(out) <= i {
		out = append(out, score.CallUnknown)
	}
	out[i] = v
	return out
}

func predictionCalls(tcs []predictionCall) ([]trace.Call, error) {
	calls := make([]trace.Call, 0, len(tcs))
	for i, pc := range tcs {
		name, args := pc.Name, pc.Arguments
		if pc.Function != nil {
			name, args = pc.Function.Name, pc.Function.Arguments
		}
		if name == "" {
			return nil, fmt.Errorf("tool_calls[%d] has no name", i)
		}
		raw := string(bytes.TrimSpace(args))
		if raw == "null" {
			raw = ""
		}
		if strings.HasPrefix(raw, `"`) {
			var s string
			if err := json.Unmarshal(args, &s); err != nil {
				return nil, fmt.Errorf("tool_calls[%d].arguments: %v", i, err)
			}
			raw = s // a JSON string holding the arguments: parsed, or flagged unparseable
		}
		calls = append(calls, trace.NewCall(pc.ID, name, raw))
	}
	return calls, nil
}

// loadPredictions reads a predictions file into one Prediction per case
// (same order). An id that is not in the gold is an error, or with
// allowUnknown is skipped and counted; a case without a prediction is
// Missing (scored as no call).
func loadPredictions(ctx context.Context, app *App, path string, cases []score.Case, allowUnknown bool) ([]score.Prediction, int, error) {
	index := make(map[string]int, len(cases))
	for i := range cases {
		index[cases[i].ID] = i
	}
	preds := make([]score.Prediction, len(cases))
	seen := make([]int, len(cases))
	unknown := 0
	err := readJSONLines(ctx, app, path, func(line int, data []byte) error {
		id, pred, err := parsePrediction(data)
		if err != nil {
			return err
		}
		i, ok := index[id]
		if !ok {
			if allowUnknown {
				unknown++
				return nil
			}
			return fmt.Errorf("prediction id %s is not in the gold (--allow-unknown ignores such lines)", id)
		}
		if seen[i] > 0 {
			return fmt.Errorf("duplicate prediction for %s (first on line %d)", id, seen[i])
		}
		seen[i] = line
		preds[i] = pred
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

// readJSONLines calls fn for every non-blank line of path ("-" = stdin,
// .gz decompressed); an error from fn becomes "PATH:LINE: error".
func readJSONLines(ctx context.Context, app *App, path string, fn func(line int, data []byte) error) error {
	in, closeIn, err := openInput(app, path)
	if err != nil {
		return err
	}
	defer closeIn()
	return scanJSONLines(ctx, app, path, in, fn)
}

// openInput opens path for reading: "-" is stdin, .gz is decompressed.
func openInput(app *App, path string) (io.Reader, func(), error) {
	if path == "-" {
		return app.In, func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, unwrapPath(err))
	}
	if !strings.HasSuffix(path, ".gz") {
		return f, func() { f.Close() }, nil
	}
	gz, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return gz, func() { gz.Close(); f.Close() }, nil
}

// scanJSONLines calls fn for every non-blank line of in; an error from fn
// becomes "NAME:LINE: error".
func scanJSONLines(ctx context.Context, app *App, name string, in io.Reader, fn func(line int, data []byte) error) error {
	br := bufio.NewReaderSize(in, 1<<16)
	progress := IsTerminal(app.Err)
	if progress {
		defer fmt.Fprint(app.Err, "\r\033[K")
	}
	for line := 1; ; line++ {
		data, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(data)) > 0 {
			if line%8192 == 0 {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
				if progress {
					fmt.Fprintf(app.Err, "\rreading %s: %d lines", name, line)
				}
			}
			if ferr := fn(line, data); ferr != nil {
				return fmt.Errorf("%s:%d: %w", name, line, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", name, line, err)
		}
	}
}

// loadTracePredictions reads a trace file in an import format and takes, for
// each gold record, the calls made at the decision point with the same input
// hash (the first one when several share it). Decision points that match no
// gold record are ignored; gold records without one are Missing.
func loadTracePredictions(app *App, path, format string, cases []score.Case, hashes []string) ([]score.Prediction, error) {
	want := make(map[string][]int, len(hashes))
	for i, h := range hashes {
		want[h] = append(want[h], i)
	}
	preds := make([]score.Prediction, len(cases))
	found := make([]bool, len(cases))
	r, closer, err := trace.OpenFile(path, format, app.In)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer closer.Close()
	for {
		t, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
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
