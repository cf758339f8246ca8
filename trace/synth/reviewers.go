package synth

import (
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"

	"github.com/goldtrace/goldtrace/trace"
)

// Answer is what a simulated reviewer says should happen at a decision
// point: the calls, or no call. Callers convert it to their label type.
type Answer struct {
	ItemID    string
	Reviewer  string
	Calls     []trace.Call
	NoCall    bool
	Rationale string
}

// ReviewerDisagreeRate is the share of decision points at which a simulated
// reviewer departs from the truth.
const ReviewerDisagreeRate = 0.12

// SimulatedLabel is reviewer's answer at the decision point e: the truth
// most of the time, otherwise a plausible disagreement (an argument value
// read differently, an optional argument added, a hand-off to a human
// instead of a refund, a call instead of no call or the reverse). It is a
// function of (e, reviewer, seed), so two reviewers mostly agree and their
// disagreements are reproducible.
func SimulatedLabel(e Expected, reviewer string, seed int64) Answer {
	h := fnv.New64a()
	h.Write([]byte(reviewer))
	h.Write([]byte{0})
	h.Write([]byte(e.ItemID))
	r := rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
	a := Answer{ItemID: e.ItemID, Reviewer: reviewer, NoCall: e.NoCall, Calls: cloneCalls(e.Calls), Rationale: rationale(e)}
	if r.Float64() >= ReviewerDisagreeRate {
		return a
	}
	if e.NoCall {
		a.NoCall = false
		a.Calls = []trace.Call{{Name: toolEscalate, Arguments: obj{{"summary", "Customer needs follow-up from a human agent."}, {"priority", "low"}}.json()}}
		a.Rationale = "I would hand this to a human to be safe."
		return a
	}
	first := a.Calls[0]
	var args map[string]any
	if json.Unmarshal(first.Arguments, &args) != nil {
		return a
	}
	switch {
	case first.Name == toolRefund || (first.Name == toolCancel && r.IntN(2) == 0):
		a.Calls = []trace.Call{{Name: toolEscalate, Arguments: obj{{"summary", "Customer asks for a refund or cancellation; needs approval."}, {"priority", "normal"}}.json()}}
		a.Rationale = "Money-related actions should go to a human under the current guide."
	case first.Name == toolOrderStatus && r.IntN(3) == 0:
		a.NoCall, a.Calls = true, nil
		a.Rationale = "The model should first ask which order the customer means."
	case first.Name == toolOrderHistory:
		a.Calls[0].Arguments = withArg(args, "limit", 10)
		a.Rationale = "Ten orders is the default the guide asks for."
	case first.Name == toolSearch:
		a.Calls[0].Arguments = withArg(args, "in_stock_only", true)
		a.Rationale = "The customer wants something they can get soon: in-stock only."
	case first.Name == toolEscalate:
		a.Calls[0].Arguments = withArg(args, "priority", "urgent")
		a.Rationale = "Repeated contacts make this urgent."
	default:
		a.NoCall, a.Calls = true, nil
		a.Rationale = "The model should confirm the details with the customer before acting."
	}
	return a
}

func withArg(args map[string]any, k string, v any) json.RawMessage {
	out := obj{}
	for key, val := range args {
		out = append(out, kv{key, jsonValue(val)})
	}
	return out.with(k, v).json()
}

// jsonValue converts a value decoded by encoding/json to one obj encodes.
func jsonValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		o := obj{}
		for k, e := range x {
			o = append(o, kv{k, jsonValue(e)})
		}
		return o
	case []any:
		var list []obj
		for _, e := range x {
			if o, ok := jsonValue(e).(obj); ok {
				list = append(list, o)
			}
		}
		return list
	case float64:
		if x == float64(int(x)) {
			return int(x)
		}
		return x
	}
	return v
}

func cloneCalls(calls []trace.Call) []trace.Call {
	if calls == nil {
		return nil
	}
	return append([]trace.Call(nil), calls...)
}

func rationale(e Expected) string {
	if e.NoCall {
		return "Nothing to look up or change here: a direct reply is right."
	}
	switch e.Calls[0].Name {
	case toolOrderStatus:
		return "The customer gave the order number; a status lookup answers the question."
	case toolOrderHistory:
		return "The customer asks about their recent orders."
	case toolTrack:
		return "Tracking number and carrier are given: live tracking is the right lookup."
	case toolRefund:
		return "Refund is warranted and within policy; reason and amount come from the message."
	case toolCancel:
		return "The order has not shipped, so it can be cancelled directly."
	case toolUpdateAddress:
		return "Unshipped order with a full new address: update it."
	case toolSearch:
		return "A product question: search the catalogue."
	case toolEscalate:
		return "The customer explicitly asks for a human."
	case toolLookup:
		return "We need the customer's account before anything else."
	case toolReturnLabel:
		return "Delivered order within the return window: create the label."
	}
	return "Matches the request."
}
