package score

import (
	"fmt"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
)

// verdict fills r from the best-fitting list.
func (s *Scorer) verdict(list []gold.ExpectedCall, m int, r *ItemResult) {
	n := len(list)
	b := &s.best
	r.List = b.list
	r.ExpectedCalls, r.PredictedCalls, r.MatchedCalls = n, m, b.exact
	paired := 0
	shapeAll := true
	for i := 0; i < n; i++ {
		j := b.colOf[i]
		if j >= m {
			shapeAll = false
			continue
		}
		paired++
		e := &b.evals[i*m+j]
		shapeAll = shapeAll && e.sameTool && e.shapeOK
	}
	r.Missed, r.Spurious = n-paired, m-paired

	r.ExpectedTool, r.PredictedTool = ClassNone, ClassNone
	if n > 0 {
		r.ExpectedTool = list[0].Tool
	}
	if m > 0 {
		r.PredictedTool = s.predName[0]
		if s.predTool[0] < 0 && len(s.c.Tools) > 0 {
			r.PredictedTool = ClassUnknown
		}
	}
	r.ToolName = (n == 0 && m == 0) || (n > 0 && m > 0 && s.profile.sameTool(list[0].Tool, s.predName[0]))
	if n > 0 {
		r.ArgsShape = shapeAll
		r.ArgsValue = b.exact == n
		r.Sequence = float64(s.lcsTools(list)) / float64(n)
	}
	r.Correct = n == m && b.exact == n
	if !r.Correct {
		r.Kind, r.Message = s.explain(list, m, paired, r)
	}
}

// lcsTools is the length of the longest common subsequence of the expected
// and predicted tool names.
func (s *Scorer) lcsTools(list []gold.ExpectedCall) int {
	n, m := len(list), len(s.calls)
	if m == 0 {
		return 0
	}
	w := m + 1
	s.lcs = growInt(s.lcs, (n+1)*w)
	for j := 0; j <= m; j++ {
		s.lcs[j] = 0
	}
	for i := 1; i <= n; i++ {
		s.lcs[i*w] = 0
		for j := 1; j <= m; j++ {
			switch {
			case s.profile.sameTool(list[i-1].Tool, s.predName[j-1]):
				s.lcs[i*w+j] = s.lcs[(i-1)*w+j-1] + 1
			case s.lcs[(i-1)*w+j] >= s.lcs[i*w+j-1]:
				s.lcs[i*w+j] = s.lcs[(i-1)*w+j]
			default:
				s.lcs[i*w+j] = s.lcs[i*w+j-1]
			}
		}
	}
	return s.lcs[n*w+m]
}

// explain picks the failing item's error kind (ErrorKinds order) and says
// what went wrong in one line.
//
// It is long because it walks the error kinds in precedence order, each a
// short case with its own message.
func (s *Scorer) explain(list []gold.ExpectedCall, m, paired int, r *ItemResult) (ErrorKind, string) {
	n := len(list)
	b := &s.best
	switch {
	case n == 0:
		return KindShouldNotCall, fmt.Sprintf("called %s; gold says no tool call", s.predictedNames())
	case m == 0:
		if r.Missing {
			return KindShouldCall, fmt.Sprintf("no prediction for this item (scored as no call); want %s", expectedNames(list))
		}
		if r.Unparseable > 0 {
			return KindShouldCall, fmt.Sprintf("no parseable call (profile %s ignores unparseable ones); want %s", s.profile.Name, expectedNames(list))
		}
		return KindShouldCall, fmt.Sprintf("no tool call; want %s", expectedNames(list))
	}
	for j := 0; j < m && len(s.c.Tools) > 0; j++ {
		if s.predTool[j] < 0 {
			return KindHallucinatedTool, fmt.Sprintf("called %s, which is not an available tool", quoteName(s.calls[j].Name))
		}
	}
	for i := 0; i < n; i++ {
		if j := b.colOf[i]; j < m && !b.evals[i*m+j].sameTool {
			return KindWrongTool, fmt.Sprintf("called %s; want %s", quoteName(s.predName[j]), quoteName(list[i].Tool))
		}
	}
	for j := 0; j < m; j++ {
		if s.predArgs[j] < 0 {
			return KindUnparseableArgs, fmt.Sprintf("%s arguments are not a JSON object: %s", quoteName(s.predName[j]), clip(s.calls[j].RawArguments()))
		}
	}
	var worst *pairEval
	worstTool := ""
	for i := 0; i < n; i++ {
		j := b.colOf[i]
		if j >= m {
			continue
		}
		e := &b.evals[i*m+j]
		if e.exact || e.issue.kind == "" {
			continue
		}
		if worst == nil || e.issue.kind.rank() < worst.issue.kind.rank() {
			worst, worstTool = e, list[i].Tool
		}
	}
	if worst != nil {
		is := worst.issue
		key := string(is.key)
		switch is.kind {
		case KindMissingArg:
			return is.kind, fmt.Sprintf("%s: missing argument %s (want %s)", quoteName(worstTool), key, clip(string(is.want)))
		case KindUnexpectedArg:
			return is.kind, fmt.Sprintf("%s: unexpected argument %s = %s", quoteName(worstTool), key, clip(string(is.got)))
		case KindWrongType:
			return is.kind, fmt.Sprintf("%s.%s = %s (%s); want %s (%s)", worstTool, key,
				clip(string(is.got)), jsonTypeOf(is.got), clip(string(is.want)), jsonTypeOf(is.want))
		default:
			return is.kind, fmt.Sprintf("%s.%s = %s; want %s", worstTool, key, clip(string(is.got)), clip(string(is.want)))
		}
	}
	if paired < n {
		var missed []string
		for i := 0; i < n; i++ {
			if b.colOf[i] >= m {
				missed = append(missed, list[i].Tool)
			}
		}
		return KindMissedCall, fmt.Sprintf("made %d of %d expected calls; missing %s", paired, n, strings.Join(missed, ", "))
	}
	var extra []string
	taken := make([]bool, m)
	for i := 0; i < n; i++ {
		if j := b.colOf[i]; j < m {
			taken[j] = true
		}
	}
	for j := 0; j < m; j++ {
		if !taken[j] {
			extra = append(extra, s.predName[j])
		}
	}
	return KindSpuriousCall, fmt.Sprintf("%d extra call(s) beyond the %d expected: %s", m-paired, n, strings.Join(extra, ", "))
}

func (s *Scorer) predictedNames() string {
	names := make([]string, 0, len(s.calls))
	for j := range s.calls {
		name := s.predName[j]
		if s.predArgs[j] < 0 {
			name += " (unparseable arguments)"
		}
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

func expectedNames(list []gold.ExpectedCall) string {
	names := make([]string, len(list))
	for i := range list {
		names[i] = list[i].Tool
	}
	return strings.Join(names, ", ")
}

func quoteName(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// clip shortens a value for a one-line message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	if s == "" {
		return "(nothing)"
	}
	return s
}

// jsonTypeOf names the JSON type of a value's text.
func jsonTypeOf(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '"':
		return "string"
	case c == '{':
		return "object"
	case c == '[':
		return "array"
	case c == 't' || c == 'f':
		return "boolean"
	case c == 'n':
		return "null"
	}
	return "number"
}
