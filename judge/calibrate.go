package judge

import (
	"math"
	"sort"
)

// Pair is one calibration item: the human verdict (score's correct against
// the adjudicated gold) beside the judge's.
type Pair struct {
	ID string `json:"id"`
	// Tool is the gold's expected first tool ((none) for no call).
	Tool  string `json:"tool"`
	Human bool   `json:"human"`
	// Judge is the judge's verdict (score >= the threshold); null when the
	// item was not judged (an error, or missing offline).
	Judge  *bool    `json:"judge"`
	Score  *float64 `json:"judge_score"`
	Reason string   `json:"judge_reason,omitempty"`
	Error  string   `json:"error,omitempty"`
}

// Confusion is the 2×2 table of human × judge verdicts.
type Confusion struct {
	BothCorrect      int `json:"human_correct_judge_correct"`
	HumanCorrectOnly int `json:"human_correct_judge_incorrect"`
	JudgeCorrectOnly int `json:"human_incorrect_judge_correct"`
	BothIncorrect    int `json:"human_incorrect_judge_incorrect"`
}

// Agreement is how often a judge agrees with the humans.
type Agreement struct {
	// Items counts the pairs where both verdicts exist.
	Items     int       `json:"judged"`
	Agreement *float64  `json:"agreement"` // null with no items
	Kappa     *float64  `json:"kappa"`     // null when chance agreement is 1 (one class only)
	Confusion Confusion `json:"confusion"`
}

// ToolAgreement is Agreement over the items of one expected tool.
type ToolAgreement struct {
	Tool string `json:"tool"`
	Agreement
}

// Calibration summarises pairs overall and per tool.
type Calibration struct {
	Agreement
	// NotJudged counts pairs without a judge verdict.
	NotJudged int             `json:"not_judged"`
	PerTool   []ToolAgreement `json:"per_tool"`
}

// CalibrationSummary is what is kept of a calibration run for the lead's
// dashboard: its statistics without the items, the verdict threshold, and
// whether the request budget ran out before every item was judged.
type CalibrationSummary struct {
	Calibration
	Threshold float64 `json:"threshold"`
	Partial   bool    `json:"partial,omitempty"`
}

// Calibrate computes agreement, Cohen's kappa and the confusion of the
// judged pairs, overall and per tool (tools sorted by name, (none) last).
func Calibrate(pairs []Pair) Calibration {
	var c Calibration
	per := map[string][]Pair{}
	var judged []Pair
	for _, p := range pairs {
		if p.Judge == nil {
			c.NotJudged++
			continue
		}
		judged = append(judged, p)
		per[p.Tool] = append(per[p.Tool], p)
	}
	c.Agreement = agreement(judged)
	tools := make([]string, 0, len(per))
	for t := range per {
		tools = append(tools, t)
	}
	sort.Slice(tools, func(i, j int) bool {
		a, b := tools[i] == "(none)", tools[j] == "(none)"
		if a != b {
			return b
		}
		return tools[i] < tools[j]
	})
	c.PerTool = make([]ToolAgreement, 0, len(tools))
	for _, t := range tools {
		c.PerTool = append(c.PerTool, ToolAgreement{Tool: t, Agreement: agreement(per[t])})
	}
	return c
}

func agreement(pairs []Pair) Agreement {
	var a Agreement
	for _, p := range pairs {
		switch {
		case p.Human && *p.Judge:
			a.Confusion.BothCorrect++
		case p.Human:
			a.Confusion.HumanCorrectOnly++
		case *p.Judge:
			a.Confusion.JudgeCorrectOnly++
		default:
			a.Confusion.BothIncorrect++
		}
	}
	a.Items = len(pairs)
	a.Agreement, a.Kappa = Kappa(a.Confusion)
	return a
}

// Kappa returns the observed agreement and Cohen's kappa of a 2×2 table;
// kappa is nil when chance agreement is 1 (both raters used one class).
func Kappa(c Confusion) (agreement, kappa *float64) {
	n := float64(c.BothCorrect + c.HumanCorrectOnly + c.JudgeCorrectOnly + c.BothIncorrect)
	if n == 0 {
		return nil, nil
	}
	po := float64(c.BothCorrect+c.BothIncorrect) / n
	humanYes := float64(c.BothCorrect+c.HumanCorrectOnly) / n
	judgeYes := float64(c.BothCorrect+c.JudgeCorrectOnly) / n
	pe := humanYes*judgeYes + (1-humanYes)*(1-judgeYes)
	obs := round6(po)
	if math.Abs(1-pe) < 1e-12 {
		return &obs, nil
	}
	k := round6((po - pe) / (1 - pe))
	return &obs, &k
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
