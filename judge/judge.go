package judge

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
)

// Judge runs one kind of judge with one prompt template.
type Judge struct {
	Kind     Kind
	Template *Template
	// Samples is the quality judge's number of yes/no judgments (default 5);
	// the other judges ask once.
	Samples int
	Runner  *Runner
}

// Result is one item's verdict.
type Result struct {
	Judged  bool // Verdict holds the judge's decision
	Verdict Verdict
	Cached  bool
	Err     error // malformed output after a retry, or missing from the cache offline
	Skipped bool  // not judged: the budget ran out, or the item was not selected
}

// SamplesUsed is the number of answers asked per item.
func (j *Judge) SamplesUsed() int {
	if j.Kind != KindQuality {
		return 1
	}
	if j.Samples <= 0 {
		return 5
	}
	return j.Samples
}

// Run judges the inputs; a nil input is not judged. It returns one result
// per input and the run's stats; a fatal endpoint error is returned with the
// results so far.
func (j *Judge) Run(ctx context.Context, inputs []*Input) ([]Result, Stats, error) {
	tasks := make([]Task, len(inputs))
	for i, in := range inputs {
		if in == nil {
			tasks[i].Skip = true
			continue
		}
		prompt, err := j.Template.Render(in)
		if err != nil {
			return nil, Stats{}, fmt.Errorf("item %s: %w", in.ID, err)
		}
		tasks[i].Request = Request{
			Messages: []Message{{Role: "user", Content: prompt}},
			JSON:     true,
			N:        j.SamplesUsed(),
		}
	}
	j.Runner.Kind, j.Runner.TemplateSHA256 = string(j.Kind), j.Template.SHA256
	outs, st, err := j.Runner.Run(ctx, tasks, func(i int, choices []Choice) (json.RawMessage, error) {
		v, err := parseVerdict(j.Kind, choices)
		if err != nil {
			return nil, err
		}
		return json.Marshal(v)
	})
	res := make([]Result, len(inputs))
	for i, o := range outs {
		r := &res[i]
		switch {
		case tasks[i].Skip, o.Skipped:
			r.Skipped = true
		case o.Err != nil:
			r.Err = o.Err
		default:
			if uerr := json.Unmarshal(o.Value, &r.Verdict); uerr != nil {
				r.Err = fmt.Errorf("cached verdict: %v", uerr)
				continue
			}
			r.Judged, r.Cached = true, o.Cached
		}
	}
	return res, st, err
}

// dated matches a model name pinned to a snapshot: a date (2024-08-06,
// 20241022, -0125, -2407), a version suffix (-001, @001, -v2, -v1.5).
var dated = regexp.MustCompile(`(\d{4}-\d{2}-\d{2}|\d{8}|-\d{3,4}$|@\d+$|[-@]v\d+(\.\d+)*$)`)

// Unpinned reports whether a model name carries no date or version suffix:
// an alias like gpt-4o moves to new snapshots, and the judge's numbers with it.
func Unpinned(model string) bool {
	return !dated.MatchString(model)
}
