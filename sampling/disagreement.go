package sampling

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"

	"github.com/goldtrace/goldtrace/trace"
)

// ByDisagreement is the --by value that ranks candidates by how much
// prediction runs disagree on them instead of drawing them at random.
const ByDisagreement = "disagreement"

// Disagreement is how much several runs' calls on one item differ. With k
// runs that have a line for the item: Tool = 1 − (the most runs sharing a
// first tool, "(none)" for no call) / k; Call = 1 − (the most runs sharing
// the whole call list, tools and arguments by value) / k. Both are 0 when
// every run agrees; with two runs they are 0 or 0.5.
type Disagreement struct {
	Runs int     `json:"runs"`
	Tool float64 `json:"tool"`
	Call float64 `json:"call"`
	// JudgeYes of JudgeVotes are the yes answers of an LLM quality judge
	// asked about each run's calls on the item (sample --judge quality);
	// both 0 when it was not asked or could not answer.
	JudgeYes   int `json:"judge_yes,omitempty"`
	JudgeVotes int `json:"judge_votes,omitempty"`
}

// JudgeSplit is how evenly the judge's votes split: 1 − |2·yes/votes − 1|,
// 1 when half of them say yes, 0 when they all agree or there are none.
func (d Disagreement) JudgeSplit() float64 {
	if d.JudgeVotes == 0 {
		return 0
	}
	return 1 - math.Abs(2*float64(d.JudgeYes)/float64(d.JudgeVotes)-1)
}

// Score orders items: tool disagreement counts twice as much as
// disagreement on arguments only, and the judge's split once: 0 to 4
// (exclusive), 0 to 3 without a judge.
func (d Disagreement) Score() float64 { return 2*d.Tool + d.Call + d.JudgeSplit() }

// Priority is Score bucketed for Sampler.Prioritize (higher is drawn
// first): in 0–240 as Score × 80 when judged is false (no judge in the
// ranking), as Score × 60 when it is true.
func (d Disagreement) Priority(judged bool) uint8 {
	if judged {
		return uint8(math.Round(d.Score() * 60))
	}
	return uint8(math.Round(d.Score() * 80))
}

// Disagree computes the disagreement of runs' calls on one item; runs
// without a line for it are nil and left out. Fewer than two runs with a
// line: zero.
func Disagree(runs [][]trace.Call) Disagreement {
	tools := map[string]int{}
	calls := map[string]int{}
	n := 0
	for _, r := range runs {
		if r == nil {
			continue
		}
		n++
		first := trace.NoTool
		if len(r) > 0 {
			first = r[0].Name
		}
		tools[first]++
		calls[callSignature(r)]++
	}
	if n < 2 {
		return Disagreement{Runs: n}
	}
	return Disagreement{Runs: n, Tool: 1 - float64(maxCount(tools))/float64(n), Call: 1 - float64(maxCount(calls))/float64(n)}
}

func maxCount(m map[string]int) int {
	best := 0
	for _, c := range m {
		best = max(best, c)
	}
	return best
}

// CallKey is a call list as one string, equal for call lists Disagree
// counts as the same (see callSignature).
func CallKey(calls []trace.Call) string { return callSignature(calls) }

// callSignature is a call list as one string: names and arguments with
// object keys sorted and numbers by value (1 = 1.0 = 1e0), so equal values
// written differently compare equal. Arguments that are not JSON count as
// their text.
func callSignature(calls []trace.Call) string {
	var b bytes.Buffer
	for _, c := range calls {
		name, _ := json.Marshal(c.Name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(valueSignature(c.Arguments))
		b.WriteByte('\n')
	}
	return b.String()
}

func valueSignature(raw json.RawMessage) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(numbersByValue(v))
	if err != nil {
		return raw
	}
	return out
}

// numbersByValue rewrites every number as the shortest text of its value.
func numbersByValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _, err := big.ParseFloat(string(x), 10, 256, big.ToNearestEven)
		if err != nil {
			return string(x)
		}
		return json.Number(f.Text('g', -1))
	case map[string]any:
		for k, e := range x {
			x[k] = numbersByValue(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbersByValue(e)
		}
	}
	return v
}

// prioritized puts priority p (higher first) above a seeded key: the
// sampler keeps the smallest keys, so items of higher priority are drawn
// first, and within a priority the seeded order decides.
func prioritized(key uint64, p uint8) uint64 {
	return uint64(255-p)<<56 | key>>8
}
