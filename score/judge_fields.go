package score

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/internal/textwrap"
)

// JudgeScore is the gate name of the LLM judge's mean score
// (--min judge_score=0.9).
const JudgeScore = "judge_score"

// JudgeSummary describes the optional LLM judge run beside the
// deterministic scores (issue 14); it never changes them.
type JudgeSummary struct {
	Kind         string `json:"kind"`     // args, selection or quality
	Model        string `json:"model"`    // as sent to the endpoint
	Endpoint     string `json:"endpoint"` // host (and port)
	PromptSHA256 string `json:"prompt_sha256"`
	Samples      int    `json:"samples"`
	// Threshold: a judge score at or above it counts as "correct" when
	// set beside the deterministic verdict.
	Threshold float64 `json:"threshold"`
	Requests  int     `json:"requests"`
	CacheHits int     `json:"cache_hits"`
	// Errors counts items whose judge output stayed malformed, or (offline)
	// that were not in the cache.
	Errors int         `json:"errors"`
	Tokens JudgeTokens `json:"tokens"`
	// MeanScore is the mean judge score over the judged items; null when
	// none was judged.
	MeanScore *float64 `json:"mean_score"`
	// Judged counts the items with a judge score; Selected those the judge
	// was asked about.
	Judged   int `json:"judged"`
	Selected int `json:"selected"`
	// Rescues: judged correct where the deterministic verdict failed;
	// Contradictions: judged incorrect where it passed.
	Rescues        int `json:"rescues"`
	Contradictions int `json:"contradictions"`
	Missing        int `json:"missing,omitempty"` // offline: not in the cache
	Skipped        int `json:"skipped,omitempty"` // not sent: the budget ran out
	// Partial: --judge-max-requests stopped the judge before every
	// selected item was judged.
	Partial bool `json:"partial,omitempty"`
	// Error is why the judge failed when --judge-best-effort kept the
	// deterministic report.
	Error string `json:"error,omitempty"`
}

// JudgeTokens are the tokens the endpoint reported using.
type JudgeTokens struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
	Total      int `json:"total"`
}

// ItemJudge is one item's judge result; when a judge ran, every item has
// one and the fields are null where the item was not judged.
type ItemJudge struct {
	JudgeScore  *float64 `json:"judge_score"`
	JudgeReason *string  `json:"judge_reason"`
	JudgeError  string   `json:"judge_error,omitempty"`
}

// JudgeOutcome is how a judge score sits beside the deterministic verdict.
type JudgeOutcome int

// Judge outcomes.
const (
	NotJudged        JudgeOutcome = iota
	JudgeAgrees                   // same verdict as the deterministic scorer
	JudgeRescues                  // correct per the judge, failed deterministically
	JudgeContradicts              // incorrect per the judge, passed deterministically
)

// JudgeOutcome compares the item's judge score (against threshold) with its
// deterministic verdict.
func (it *ItemResult) JudgeOutcome(threshold float64) JudgeOutcome {
	if it.ItemJudge == nil || it.JudgeScore == nil {
		return NotJudged
	}
	judgeOK := *it.JudgeScore >= threshold
	switch {
	case judgeOK == it.Correct:
		return JudgeAgrees
	case judgeOK:
		return JudgeRescues
	}
	return JudgeContradicts
}

// SetJudge attaches a judge run to the report: every item gets an ItemJudge
// (from judged, by item index; absent entries stay null) and the summary's
// mean, counts, rescues and contradictions are computed.
func (r *Report) SetJudge(s JudgeSummary, judged map[int]ItemJudge) {
	var sum float64
	s.Judged, s.Rescues, s.Contradictions = 0, 0, 0
	for i := range r.Items {
		it := &r.Items[i]
		ij := judged[i]
		it.ItemJudge = &ij
		if ij.JudgeScore == nil {
			continue
		}
		s.Judged++
		sum += *ij.JudgeScore
		switch it.JudgeOutcome(s.Threshold) {
		case JudgeRescues:
			s.Rescues++
		case JudgeContradicts:
			s.Contradictions++
		}
	}
	s.MeanScore = nil
	if s.Judged > 0 {
		m := sum / float64(s.Judged)
		s.MeanScore = &m
	}
	r.Judge = &s
}

func checkJudgeGate(spec, name string, perTool bool) error {
	if name == JudgeScore && perTool {
		return fmt.Errorf("gate %q: judge_score gates the overall mean only", spec)
	}
	return nil
}

// checkJudge checks a judge_score gate against the judge's mean score; with
// no judge run or no judged item it is n/a and passes, like any metric
// without data.
func (r *Report) checkJudge(g Gate) {
	var p *float64
	if r.Judge != nil {
		p = r.Judge.MeanScore
	}
	res := GateResult{Check: g.String(), Scope: "overall", Value: p, Limit: g.Limit, Passed: true}
	if p != nil {
		res.Passed = *p >= g.Limit-1e-12
	}
	r.record(res)
}

// writeJudgeText writes the judge section of the text and markdown reports:
// the summary, then the judged items where the judge rescues or contradicts
// the deterministic verdict, then the other judged items, up to limit.
func (r *Report) writeJudgeText(w *bufio.Writer, markdown bool, limit int) {
	j := r.Judge
	if j == nil {
		return
	}
	head := "\nJUDGE\n"
	if markdown {
		head = "\n## Judge\n\n"
	}
	w.WriteString(head)
	line := func(format string, args ...any) {
		if markdown {
			w.WriteString("- ")
			fmt.Fprintf(w, format+"\n", args...)
			return
		}
		w.WriteString(textwrap.Wrap(fmt.Sprintf(format, args...), textWidth, "  ") + "\n")
	}
	line("%s judge, model %s at %s, prompt sha256 %s, %d sample(s)", j.Kind, j.Model, j.Endpoint, short(j.PromptSHA256), j.Samples)
	if j.Error != "" {
		line("judge failed (--judge-best-effort kept the deterministic report): %s", j.Error)
		return
	}
	line("mean judge_score %s over %d judged of %d selected items; %d requests, %d cache hits, %d errors, %d tokens",
		FormatRate(j.MeanScore), j.Judged, j.Selected, j.Requests, j.CacheHits, j.Errors, j.Tokens.Total)
	line("against the deterministic verdict (judge correct when score >= %g): %s, %s", j.Threshold, plural(j.Rescues, "rescue"), plural(j.Contradictions, "contradiction"))
	if j.Partial {
		line("PARTIAL: the request budget ran out; %d items not judged", j.Skipped)
	}
	if j.Missing > 0 {
		line("offline: %d items not in the judge cache", j.Missing)
	}
	var rows []string
	for _, want := range []JudgeOutcome{JudgeRescues, JudgeContradicts, JudgeAgrees} {
		for i := range r.Items {
			it := &r.Items[i]
			if it.JudgeOutcome(j.Threshold) != want {
				continue
			}
			tag := map[JudgeOutcome]string{JudgeRescues: "RESCUE", JudgeContradicts: "CONTRADICTS", JudgeAgrees: "agrees"}[want]
			verdict := "fail"
			if it.Correct {
				verdict = "pass"
			}
			reason := ""
			if it.JudgeReason != nil {
				reason = *it.JudgeReason
			}
			rows = append(rows, fmt.Sprintf("%-11s %s  judge %s, rules %s: %s", tag, it.ID, FormatRate(it.JudgeScore), verdict, abbreviate(strings.Join(strings.Fields(reason), " "), 70)))
		}
	}
	for i := range r.Items {
		if it := &r.Items[i]; it.ItemJudge != nil && it.JudgeError != "" {
			rows = append(rows, fmt.Sprintf("%-11s %s  %s", "ERROR", it.ID, abbreviate(it.JudgeError, 80)))
		}
	}
	if len(rows) == 0 {
		return
	}
	if markdown {
		w.WriteString("\n```\n")
	}
	for i, row := range rows {
		if i == limit {
			fmt.Fprintf(w, "… %d more judged items (--format json lists all)\n", len(rows)-limit)
			break
		}
		if !markdown {
			row = textwrap.Wrap(row, textWidth, strings.Repeat(" ", 12))
		}
		w.WriteString(row + "\n")
	}
	if markdown {
		w.WriteString("```\n")
	}
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}
