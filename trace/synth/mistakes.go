package synth

import (
	"strconv"
	"strings"

	"github.com/goldtrace/goldtrace/trace"
)

// Mistake is a kind of deliberate error the generated model makes at a
// decision point.
type Mistake string

// The mistakes the generator makes, named after what a reviewer would see.
const (
	MistakeNone             Mistake = ""
	MistakeWrongTool        Mistake = "wrong_tool"        // a real but wrong tool
	MistakeMissingArg       Mistake = "missing_arg"       // a required argument left out
	MistakeExtraArg         Mistake = "extra_arg"         // an argument the schema does not have
	MistakeWrongType        Mistake = "wrong_type"        // an argument of the wrong JSON type
	MistakeWrongValue       Mistake = "wrong_value"       // right tool and shape, wrong value
	MistakeHallucinatedTool Mistake = "hallucinated_tool" // a tool that is not offered
	MistakeUnparseable      Mistake = "unparseable_args"  // arguments that are not JSON
	MistakeMissedCall       Mistake = "missed_call"       // answered without the call it needed
	MistakeUnneededCall     Mistake = "unneeded_call"     // called a tool when none was needed
)

// MistakeKinds lists every kind of mistake (not MistakeNone), for tests and
// reports.
func MistakeKinds() []Mistake {
	return []Mistake{MistakeWrongTool, MistakeMissingArg, MistakeExtraArg, MistakeWrongType, MistakeWrongValue,
		MistakeHallucinatedTool, MistakeUnparseable, MistakeMissedCall, MistakeUnneededCall}
}

type weighted struct {
	m Mistake
	w float64 // percent, before the model's scale
}

// callMistakes are the rates at decision points that need a call.
var callMistakes = []weighted{
	{MistakeWrongTool, 6}, {MistakeMissingArg, 3}, {MistakeExtraArg, 2.5}, {MistakeWrongType, 2.5},
	{MistakeWrongValue, 3}, {MistakeHallucinatedTool, 2.5}, {MistakeUnparseable, 2.5}, {MistakeMissedCall, 2.5},
}

// noToolMistakes are the rates at decision points that need no call.
var noToolMistakes = []weighted{{MistakeUnneededCall, 9}}

// roll draws a mistake (or none) with the conversation's model scale.
func (g *conversation) roll(table []weighted) Mistake {
	u := g.r.Float64() * 100
	for _, x := range table {
		u -= x.w * g.scale
		if u < 0 {
			return x.m
		}
	}
	return MistakeNone
}

// observe turns the right calls of a step into what the model called, with
// mistake m applied to the first call. It returns the calls, the error each
// tool answers with ("" = answer normally) and the mistake actually made
// (MistakeNone when m does not apply to this call).
func (g *conversation) observe(step []plannedCall, m Mistake) ([]trace.Call, []string, Mistake) {
	calls := g.correctCalls(step)
	errs := make([]string, len(calls))
	if m == MistakeNone {
		return calls, g.results(step, errs), MistakeNone
	}
	plans := append([]plannedCall(nil), step...)
	first := step[0]
	c := &calls[0]
	switch m {
	case MistakeWrongTool:
		alt, ok := g.confusable(first)
		if !ok {
			return calls, g.results(plans, errs), MistakeNone
		}
		c.Name, c.Arguments = alt.name, alt.args.json()
		plans[0] = alt
	case MistakeMissingArg:
		req := requiredArgs[first.name]
		k := req[g.r.IntN(len(req))]
		c.Arguments = first.args.without(k).json()
		errs[0] = `{"error":"missing required parameter \"` + k + `\""}`
	case MistakeExtraArg:
		k, v := g.extraArg(first.name)
		plans[0].args = first.args.with(k, v)
		c.Arguments = plans[0].args.json()
	case MistakeWrongType:
		k := pick(g.r, requiredArgs[first.name])
		v, want := wrongType(first.args.get(k))
		c.Arguments = first.args.with(k, v).json()
		errs[0] = `{"error":"parameter \"` + k + `\": expected ` + want + `"}`
	case MistakeWrongValue:
		args, ok := g.wrongValue(first)
		if !ok {
			return calls, g.results(plans, errs), MistakeNone
		}
		plans[0].args = args
		c.Arguments = args.json()
	case MistakeHallucinatedTool:
		c.Name = g.hallucinatedName(first.name)
		errs[0] = `{"error":"unknown tool \"` + c.Name + `\""}`
	case MistakeUnparseable:
		*c = trace.NewCall(c.ID, c.Name, g.malformed(first.args))
		if !c.Unparseable {
			return calls, g.results(plans, errs), MistakeNone
		}
		errs[0] = `{"error":"arguments are not valid JSON"}`
	}
	return calls, g.results(plans, errs), m
}

// results fills in the tools' answers to plans where errs has none.
func (g *conversation) results(plans []plannedCall, errs []string) []string {
	for i, pc := range plans {
		if errs[i] == "" {
			errs[i] = g.result(pc)
		}
	}
	return errs
}

var requiredArgs = map[string][]string{
	toolOrderStatus:   {"order_id"},
	toolOrderHistory:  {"user_id"},
	toolTrack:         {"tracking_number", "carrier"},
	toolRefund:        {"order_id", "amount", "reason"},
	toolCancel:        {"order_id"},
	toolUpdateAddress: {"order_id", "address"},
	toolSearch:        {"query"},
	toolEscalate:      {"summary", "priority"},
	toolLookup:        {"email"},
	toolReturnLabel:   {"order_id", "items", "reason"},
}

// confusable is the real tool a model plausibly picks instead of pc.
func (g *conversation) confusable(pc plannedCall) (plannedCall, bool) {
	var alt plannedCall
	switch pc.name {
	case toolOrderStatus:
		alt = plannedCall{toolOrderHistory, obj{{"user_id", g.cust.userID}}}
	case toolOrderHistory:
		alt = plannedCall{toolOrderStatus, obj{{"order_id", g.orders[0].id}}}
	case toolTrack:
		alt = plannedCall{toolOrderStatus, obj{{"order_id", pc.args.get("tracking_number")}}}
	case toolRefund:
		alt = plannedCall{toolCancel, obj{{"order_id", pc.args.get("order_id")}, {"reason", "customer requested a refund"}}}
	case toolCancel:
		alt = plannedCall{toolRefund, obj{{"order_id", pc.args.get("order_id")}, {"amount", float64(g.orders[0].cents) / 100}, {"reason", "other"}}}
	case toolUpdateAddress:
		alt = plannedCall{toolOrderStatus, obj{{"order_id", pc.args.get("order_id")}}}
	case toolLookup:
		alt = plannedCall{toolOrderHistory, obj{{"user_id", pc.args.get("email")}}}
	case toolReturnLabel:
		alt = plannedCall{toolRefund, obj{{"order_id", pc.args.get("order_id")}, {"amount", float64(g.orders[0].cents) / 100}, {"reason", "other"}}}
	case toolEscalate:
		alt = plannedCall{toolLookup, obj{{"email", g.cust.email}}}
	case toolSearch:
		alt = plannedCall{toolOrderHistory, obj{{"user_id", g.cust.userID}}}
	default:
		return pc, false
	}
	return alt, g.offers(alt.name)
}

func (g *conversation) extraArg(tool string) (string, any) {
	switch g.r.IntN(4) {
	case 0:
		return "customer_email", g.cust.email
	case 1:
		return "confirm", true
	case 2:
		return "notes", "customer asked via chat"
	}
	if tool == toolOrderHistory {
		return "include_cancelled", true
	}
	return "customer_name", g.cust.name
}

// wrongType returns v as another JSON type, and the type the schema wants.
func wrongType(v any) (any, string) {
	switch x := v.(type) {
	case string:
		if n, err := strconv.Atoi(strings.TrimPrefix(x, "ORD-")); err == nil && strings.HasPrefix(x, "ORD-") {
			return n, "string"
		}
		return []string{x}, "string"
	case float64:
		return strconv.FormatFloat(x, 'f', 2, 64), "number"
	case int:
		return strconv.Itoa(x), "integer"
	case bool:
		return "yes", "boolean"
	case obj:
		return strings.Join([]string{str(x.get("street")), str(x.get("city")), str(x.get("postal_code")), str(x.get("country"))}, ", "), "object"
	case []obj:
		return x[0], "array"
	}
	return "", "value"
}

func str(v any) string { s, _ := v.(string); return s }

var enums = map[string][]string{
	"carrier":  {"ups", "fedex", "dhl", "usps", "royal_mail"},
	"priority": {"low", "normal", "high", "urgent"},
}

// wrongValue changes one argument of pc to a plausible wrong value.
func (g *conversation) wrongValue(pc plannedCall) (obj, bool) {
	a := pc.args
	switch pc.name {
	case toolOrderStatus, toolCancel, toolUpdateAddress:
		return a.with("order_id", typo(str(a.get("order_id")))), true
	case toolTrack:
		return a.with("carrier", other(g, enums["carrier"], str(a.get("carrier")))), true
	case toolRefund:
		if g.r.IntN(2) == 0 {
			return a.with("reason", other(g, []string{"damaged", "not_received", "wrong_item", "duplicate_charge", "late_delivery", "other"}, str(a.get("reason")))), true
		}
		amt, _ := a.get("amount").(float64)
		return a.with("amount", float64(int(amt*200+0.5))/100), true
	case toolEscalate:
		return a.with("priority", other(g, enums["priority"], str(a.get("priority")))), true
	case toolLookup:
		e := str(a.get("email"))
		at := strings.IndexByte(e, '@')
		if at < 2 {
			return a, false
		}
		return a.with("email", e[:at-1]+e[at:]), true
	case toolOrderHistory:
		return a.with("limit", 50), true
	case toolSearch:
		return a.with("in_stock_only", false), true
	case toolReturnLabel:
		return a.with("reason", "other"), true
	}
	return a, false
}

func other(g *conversation, choices []string, not string) string {
	for {
		if c := pick(g.r, choices); c != not {
			return c
		}
	}
}

// typo swaps two adjacent digits of an id like ORD-48213 (or changes the
// last one when they are equal).
func typo(id string) string {
	b := []byte(id)
	n := len(b)
	if n < 2 {
		return id + "1"
	}
	if b[n-1] != b[n-2] {
		b[n-1], b[n-2] = b[n-2], b[n-1]
	} else {
		b[n-1] = '0' + (b[n-1]-'0'+1)%10
	}
	return string(b)
}

var inventedTools = map[string][]string{
	toolOrderStatus:   {"check_order_status", "get_order"},
	toolOrderHistory:  {"list_orders", "get_orders"},
	toolTrack:         {"get_tracking_info", "track_package"},
	toolRefund:        {"process_refund", "refund_order"},
	toolCancel:        {"cancel_purchase"},
	toolUpdateAddress: {"change_address", "update_address"},
	toolSearch:        {"find_products", "product_search"},
	toolEscalate:      {"transfer_to_agent", "handoff_to_human"},
	toolLookup:        {"find_customer", "get_customer_by_email"},
	toolReturnLabel:   {"start_return", "create_rma"},
}

// relatedTools are real tools a model reaches for instead of the right one;
// when the deployment does not offer them, calling them is a hallucination.
var relatedTools = map[string]string{
	toolOrderStatus:   toolTrack,
	toolRefund:        toolCancel,
	toolCancel:        toolRefund,
	toolReturnLabel:   toolRefund,
	toolUpdateAddress: toolCancel,
	toolOrderHistory:  toolLookup,
}

// hallucinatedName is a tool name the conversation does not offer: usually an
// invented one, sometimes a related real tool this deployment does not offer.
func (g *conversation) hallucinatedName(right string) string {
	if rel, ok := relatedTools[right]; ok && !g.offers(rel) && g.r.IntN(3) == 0 {
		return rel
	}
	return pick(g.r, inventedTools[right])
}

// malformed writes args the way models get JSON wrong.
func (g *conversation) malformed(args obj) string {
	good := string(args.json())
	switch g.r.IntN(5) {
	case 0:
		return good[:len(good)-1] // truncated
	case 1:
		return strings.ReplaceAll(good, `"`, `'`) // Python dict
	case 2:
		return good[:len(good)-1] + `,}` // trailing comma
	case 3:
		return "```json\n" + good + "\n```" // fenced
	}
	var b strings.Builder // unquoted keys
	b.WriteByte('{')
	for i, f := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.k + ": " + string(appendValue(nil, f.v)))
	}
	b.WriteByte('}')
	return b.String()
}

// unneededCall is a call a model makes at a turn that needs none.
func (g *conversation) unneededCall() (plannedCall, bool) {
	options := []plannedCall{
		{toolLookup, obj{{"email", g.cust.email}}},
		{toolOrderHistory, obj{{"user_id", g.cust.userID}, {"limit", 5}}},
		{toolOrderStatus, obj{{"order_id", g.orders[0].id}}},
		{toolSearch, obj{{"query", "return policy"}}},
	}
	for range 4 {
		pc := pick(g.r, options)
		if g.offers(pc.name) {
			return pc, true
		}
	}
	return plannedCall{}, false
}
