package dataset

import (
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// ScoreCase is the record as the scorer sees it. A record with only the
// older expected_tool/expected_args fields is read as one expected call.
func (r *Record) ScoreCase() score.Case {
	c := score.Case{
		ID:         r.ID,
		Expected:   r.ExpectedCalls,
		Acceptable: r.Acceptable,
		Tools:      r.AvailableTools,
		Meta:       r.Input.Context.Metadata,
	}
	if len(c.Expected) == 0 && r.ExpectedTool != nil && *r.ExpectedTool != "" {
		c.Expected = []score.ExpectedCall{{Tool: *r.ExpectedTool, Args: r.ExpectedArgs}}
	}
	return c
}

// ObservedPrediction is what the production model did at the record's
// decision point, as a prediction to score.
func (r *Record) ObservedPrediction() score.Prediction {
	p := score.Prediction{Calls: make([]trace.Call, 0, len(r.ObservedCalls))}
	for _, o := range r.ObservedCalls {
		p.Calls = append(p.Calls, trace.Call{Name: o.Tool, Arguments: o.Args, Unparseable: o.Unparseable})
	}
	return p
}
