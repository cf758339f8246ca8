package score

import (
	"context"
	"io"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The scorer's read path: gold records by gold's reader (in parallel,
// without reflection, only the fields scoring needs) and predictions by
// ReadPredictions.

// Gold is a gold dataset as the scorer reads it.
type Gold struct {
	Cases []Case
	// Observed are the production model's calls per case (the records'
	// observed_calls), when ReadGold was asked for them.
	Observed []Prediction
	// Index finds a case's position in Cases by id (for
	// PredictionOptions.Index).
	Index *gold.Index
}

// ReadOptions tune the readers.
type ReadOptions struct {
	// Progress, when set, is called now and then with the lines read so far.
	Progress func(lines int)
}

// GoldOptions tune ReadGold.
type GoldOptions struct {
	ReadOptions
	// Observed also reads observed_calls (scoring without predictions).
	Observed bool
}

// ReadGold reads a gold dataset file (gold.Read). name is what errors cite
// ("NAME:LINE: problem").
func ReadGold(ctx context.Context, r io.Reader, name string, opts GoldOptions) (Gold, error) {
	var g Gold
	ro := gold.ReadOptions{Progress: opts.Progress}
	if opts.Observed {
		ro.Fields = gold.FieldObserved
	}
	var cases [][]Case // per block of about blockCases, joined once at the end
	var observed [][]Prediction
	const blockCases = 4096
	type goldLine struct {
		c        Case
		observed Prediction
	}
	asLine := func(rec gold.Record) goldLine {
		gl := goldLine{c: CaseOf(&rec)}
		if opts.Observed {
			gl.observed = ObservedOf(&rec)
		}
		return gl
	}
	n := 0
	index, err := gold.ReadIndexed(ctx, r, name, ro, asLine, func(gl *goldLine) string { return gl.c.ID }, func(_ int, gl *goldLine) error {
		if len(cases) == 0 || len(cases[len(cases)-1]) == blockCases {
			cases = append(cases, make([]Case, 0, blockCases))
			observed = append(observed, nil)
		}
		k := len(cases) - 1
		cases[k] = append(cases[k], gl.c)
		if opts.Observed {
			observed[k] = append(observed[k], gl.observed)
		}
		n++
		return nil
	})
	if err != nil {
		return g, err
	}
	g.Index = index
	g.Cases = make([]Case, 0, n)
	for k := range cases {
		g.Cases = append(g.Cases, cases[k]...)
		if opts.Observed {
			g.Observed = append(g.Observed, observed[k]...)
		}
		cases[k], observed[k] = nil, nil
	}
	return g, nil
}

// CaseOf is the gold record as the scorer sees it.
func CaseOf(r *gold.Record) Case {
	return Case{
		ID:         r.ID,
		Expected:   r.ExpectedList(),
		Acceptable: r.Acceptable,
		Tools:      r.AvailableTools,
		Meta:       r.Input.Context.Metadata,
		Trace:      r.Input.Context.TraceID,
	}
}

// ObservedOf is what the production model did at the record's decision
// point, as a prediction to score.
func ObservedOf(r *gold.Record) Prediction {
	p := Prediction{Calls: make([]trace.Call, 0, len(r.ObservedCalls))}
	for _, o := range r.ObservedCalls {
		p.Calls = append(p.Calls, trace.Call{Name: o.Tool, Arguments: o.Args, Unparseable: o.Unparseable})
	}
	return p
}
