package score

import (
	"encoding/json"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// Scorer grades items one at a time, reusing its buffers: the hot path
// allocates only for failure messages. A Scorer is not safe for concurrent
// use; make one per goroutine.
type Scorer struct {
	profile Profile
	f       gold.Forest
	asg     assigner

	cost []int64

	// per item
	c          *Case
	calls      []trace.Call // predicted calls being matched
	callIndex  []int        // index of each in the prediction's calls
	predArgs   []int32      // parsed argument object per call, -1 when unparseable
	predTool   []int        // index in c.Tools, -1 when not available
	predName   []string     // the available tool's name, or the call's own
	schemaRoot []int32      // per tool: its parameters schema node; -2 not parsed yet, -1 none
	evals      []pairEval   // n×m for the list in hand
	best       listFit
	cur        listFit
	lcs        []int

	// per expected call: its pointer rules, and the nested walk's state
	ptrs []ptrRule
	path []string
	fail nestFail
}

// pairEval is how one expected call fares against one predicted call.
type pairEval struct {
	sameTool bool
	exact    bool
	shapeOK  bool
	errs     int
	issue    issue
}

// issue is the most severe problem with a pair's arguments.
type issue struct {
	kind      ErrorKind
	key       []byte
	want, got []byte
}

// listFit is the outcome of matching one gold list.
type listFit struct {
	list  int
	exact int
	rest  int64
	colOf []int // expected i → predicted colOf[i], or ≥ m when unpaired
	evals []pairEval
}

// NewScorer returns a Scorer using profile p.
func NewScorer(p Profile) *Scorer {
	s := &Scorer{profile: p}
	if p.normalizeStrings {
		s.f.Normalize = bfclNormalize
	}
	return s
}

// Match grades one item and also returns its call pairs. It is the
// single-item entry point; Score grades whole datasets.
func Match(c Case, p Prediction, profile Profile) ItemResult {
	s := NewScorer(profile)
	r := s.Item(&c, p)
	n := r.ExpectedCalls
	for i := 0; i < n; i++ {
		if j := s.best.colOf[i]; j < len(s.calls) {
			r.Pairs = append(r.Pairs, Pair{Expected: i, Predicted: s.origIndex(j), Exact: s.best.evals[i*len(s.calls)+j].exact})
		}
	}
	return r
}

// origIndex maps an index into s.calls back to the prediction's calls
// (they differ when the profile drops unparseable calls).
func (s *Scorer) origIndex(j int) int {
	return s.callIndex[j]
}

// Item grades one prediction against one case.
func (s *Scorer) Item(c *Case, p Prediction) ItemResult {
	s.c = c
	s.f.Reset()
	r := ItemResult{ID: c.ID, Missing: p.Missing, EmittedCalls: len(p.Calls)}
	if len(c.Tools) > 0 {
		// Without a catalogue no call can be judged hallucinated: those calls
		// stay out of hallucinated_tool_rate.
		r.CatalogCalls = len(p.Calls)
	}
	s.preparePredictions(p.Calls, &r)
	m := len(s.calls)

	s.schemaRoot = s.schemaRoot[:0]
	for range c.Tools {
		s.schemaRoot = append(s.schemaRoot, -2)
	}
	s.best.list = -1
	for li := 0; li <= len(c.Acceptable); li++ {
		list := c.Expected
		if li > 0 {
			list = c.Acceptable[li-1]
		}
		s.fitList(li, list)
		if s.best.list < 0 || s.cur.exact > s.best.exact || (s.cur.exact == s.best.exact && s.cur.rest < s.best.rest) {
			s.best, s.cur = s.cur, s.best
		}
	}
	list := c.Expected
	if s.best.list > 0 {
		list = c.Acceptable[s.best.list-1]
	}
	s.verdict(list, m, &r)
	r.Trace = c.Trace
	if s.profile.seed != seedNone {
		s.seedItem(&p, &r)
	}
	return r
}

// preparePredictions parses the predicted arguments and resolves tool names.
func (s *Scorer) preparePredictions(calls []trace.Call, r *ItemResult) {
	s.calls = s.calls[:0]
	s.callIndex = s.callIndex[:0]
	s.predArgs = s.predArgs[:0]
	s.predTool = s.predTool[:0]
	s.predName = s.predName[:0]
	for i := range calls {
		call := &calls[i]
		args := int32(-1)
		if !call.Unparseable {
			args = s.parseArgs(call.Arguments)
		}
		if args < 0 {
			r.Unparseable++
			if s.profile.unparseableIsNoCall && !(s.profile.unparseableFailsItem && len(s.c.Expected) > 0) {
				continue
			}
		}
		tool := -1
		name := call.Name
		for ti := range s.c.Tools {
			if s.profile.sameTool(s.c.Tools[ti].Name, call.Name) {
				tool, name = ti, s.c.Tools[ti].Name
				break
			}
		}
		if tool < 0 && len(s.c.Tools) > 0 {
			r.Hallucinated++
		}
		s.calls = append(s.calls, *call)
		s.callIndex = append(s.callIndex, i)
		s.predArgs = append(s.predArgs, args)
		s.predTool = append(s.predTool, tool)
		s.predName = append(s.predName, name)
	}
}

// parseArgs parses an arguments object; null or empty means {}. It returns
// -1 when the text is not a JSON object.
func (s *Scorer) parseArgs(raw json.RawMessage) int32 {
	if len(raw) == 0 || string(raw) == "null" {
		return s.emptyObject()
	}
	idx, err := s.f.Parse(raw)
	if err != nil {
		return -1
	}
	if s.f.Nodes[idx].Kind == gold.KindNull {
		return s.emptyObject()
	}
	if s.f.Nodes[idx].Kind != gold.KindObject {
		return -1
	}
	return idx
}

func (s *Scorer) emptyObject() int32 {
	s.f.Nodes = append(s.f.Nodes, gold.Node{Kind: gold.KindObject, Raw: []byte("{}"), First: -1, Next: -1})
	return int32(len(s.f.Nodes) - 1)
}

// Costs of the assignment. Within one list, the assignment first maximises
// exact pairs, then minimises the "rest": a same-tool pair costs 10 plus its
// number of failing arguments (at most 9 counted), a pair of different tools
// 30, an unpaired call 20 (so pairing same-tool calls always beats leaving
// them unpaired, and a wrong-tool pair beats a missed plus a spurious call).
const (
	costSameTool  = 10
	costArgsCap   = 9
	costCrossTool = 30
	costUnpaired  = 20
)

// fitList pairs the predicted calls with one gold list into s.cur.
//
// It is long because the cost matrix is filled and solved in place, on the
// Scorer's reused buffers (the hot path allocates nothing).
func (s *Scorer) fitList(li int, list []gold.ExpectedCall) {
	n, m := len(list), len(s.calls)
	s.cur.list = li
	s.cur.exact = 0
	s.cur.rest = 0
	s.cur.colOf = growInt(s.cur.colOf, n)
	if cap(s.cur.evals) < n*m {
		s.cur.evals = make([]pairEval, n*m)
	}
	s.cur.evals = s.cur.evals[:n*m]
	for i := range list {
		idx := s.parseArgs(list[i].Args)
		s.loadPointers(&list[i])
		for j := 0; j < m; j++ {
			s.cur.evals[i*m+j] = s.evalPair(&list[i], idx, j)
		}
	}
	half := int64(costCrossTool*(n+m) + 1)
	pairCost := func(e *pairEval) int64 {
		switch {
		case e.exact:
			return 0
		case e.sameTool:
			return 2*half + costSameTool + int64(min(e.errs, costArgsCap))
		default:
			return 2*half + costCrossTool
		}
	}
	switch {
	case n == 0 || m == 0:
		for i := range n {
			s.cur.colOf[i] = m
		}
	case n == 1 && m == 1:
		s.cur.colOf[0] = 0
	default:
		k := n + m
		if cap(s.cost) < k*k {
			s.cost = make([]int64, k*k)
		}
		cost := s.cost[:k*k]
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				var c int64
				switch {
				case i < n && j < m:
					c = pairCost(&s.cur.evals[i*m+j])
				case i < n: // expected i left unpaired
					c = costInf
					if j-m == i {
						c = half + costUnpaired
					}
				case j < m: // predicted j left unpaired
					c = costInf
					if i-n == j {
						c = half + costUnpaired
					}
				}
				cost[i*k+j] = c
			}
		}
		s.asg.solve(cost, k)
		copy(s.cur.colOf, s.asg.colOf[:n])
	}
	paired := 0
	for i := 0; i < n; i++ {
		j := s.cur.colOf[i]
		if j >= m {
			s.cur.colOf[i] = m
			continue
		}
		paired++
		e := &s.cur.evals[i*m+j]
		if e.exact {
			s.cur.exact++
		} else {
			s.cur.rest += pairCost(e) - 2*half
		}
	}
	s.cur.rest += int64(costUnpaired * (n + m - 2*paired))
}
