package synth

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// Cohorts a trace may belong to (metadata "cohort").
const (
	cohortShipping = "shipping"
	cohortBilling  = "billing"
	cohortReturns  = "returns"
	cohortAccount  = "account"
	cohortProducts = "products"
)

var (
	cohorts       = []string{cohortShipping, cohortShipping, cohortShipping, cohortBilling, cohortBilling, cohortReturns, cohortReturns, cohortAccount, cohortAccount, cohortProducts}
	models        = []string{"gpt-4.1-2025-04-14", "gpt-4.1-2025-04-14", "claude-sonnet-4-20250514", "gemini-2.5-flash"}
	modelMistakes = map[string]float64{"gpt-4.1-2025-04-14": 1.0, "claude-sonnet-4-20250514": 0.7, "gemini-2.5-flash": 1.4}
)

const shopName = "Northwind Outfitters"

// customer is the person writing in, with their orders.
type customer struct {
	name, first, email, userID string
	signedIn                   bool
	tier                       string
}

type order struct {
	id, status, carrier, tracking, placed, eta string
	cents                                      int
	items                                      []orderItem
}

type orderItem struct {
	sku, name  string
	qty, cents int
}

// conversation is the state of one trace being generated.
type conversation struct {
	r        *rand.Rand
	id       string
	now      time.Time // when the conversation happens
	model    string
	prompt   string
	cohort   string
	region   region
	cust     customer
	orders   []order
	tools    []string
	metadata map[string]string
	scale    float64 // multiplies the mistake rates

	msgs      []trace.Message
	withTruth bool // record expected (Write skips it for speed)
	expected  []Expected
	calls     int
}

func newConversation(r *rand.Rand, id string, now time.Time) *conversation {
	g := &conversation{r: r, id: id, now: now}
	g.model = pick(r, models)
	g.prompt = "v7"
	if r.IntN(5) < 2 {
		g.prompt = "v6"
	}
	g.cohort = pick(r, cohorts)
	g.region = pick(r, regions)
	g.scale = modelMistakes[g.model]
	if g.prompt == "v6" {
		g.scale *= 1.25
	}
	g.tools = toolSet(g.cohort, g.prompt)
	first, last := pick(r, firstNames), pick(r, lastNames)
	g.cust = customer{
		name:     first + " " + last,
		first:    first,
		email:    emailFor(r, first, last),
		userID:   "u_" + strconv.Itoa(10000+r.IntN(90000)),
		signedIn: r.IntN(2) == 0,
		tier:     pick(r, []string{"standard", "standard", "silver", "gold"}),
	}
	g.makeOrders()
	g.metadata = map[string]string{
		"model":          g.model,
		"prompt_version": g.prompt,
		"cohort":         g.cohort,
		"region":         g.region.code,
		"channel":        pick(r, []string{"web_chat", "web_chat", "mobile_app", "email"}),
	}
	return g
}

func emailFor(r *rand.Rand, first, last string) string {
	f, l := asciiLower(first), asciiLower(last)
	var local string
	switch r.IntN(4) {
	case 0:
		local = f + "." + l
	case 1:
		local = f[:1] + l
	case 2:
		local = f + l + strconv.Itoa(r.IntN(99))
	default:
		local = f + "_" + l
	}
	return local + "@" + pick(r, mailDomains)
}

// asciiLower lowercases a name and keeps only a–z, as email local parts do.
func asciiLower(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z':
			b.WriteRune(c)
		case c == 'é':
			b.WriteByte('e')
		case c == 'í':
			b.WriteByte('i')
		}
	}
	return b.String()
}

var orderStatuses = []string{"placed", "packed", "shipped", "shipped", "in_transit", "delivered", "delivered", "delivered"}

func (g *conversation) makeOrders() {
	n := 1 + g.r.IntN(4)
	for i := 0; i < n; i++ {
		o := order{
			id:      "ORD-" + strconv.Itoa(10000+g.r.IntN(90000)),
			status:  pick(g.r, orderStatuses),
			carrier: pick(g.r, g.region.carriers),
			placed:  g.day(-1 - g.r.IntN(25)),
			eta:     g.day(1 + g.r.IntN(7)),
		}
		o.tracking = trackingNumber(g.r, o.carrier)
		for j := 0; j < 1+g.r.IntN(3); j++ {
			it := orderItem{sku: "SKU-" + strconv.Itoa(10000+g.r.IntN(90000)), name: pick(g.r, products),
				qty: 1 + g.r.IntN(2), cents: 499 + g.r.IntN(19000)}
			o.items = append(o.items, it)
			o.cents += it.qty * it.cents
		}
		g.orders = append(g.orders, o)
	}
}

// day is the date n days from the conversation, as YYYY-MM-DD.
func (g *conversation) day(n int) string {
	return g.now.AddDate(0, 0, n).Format(time.DateOnly)
}

func (g *conversation) offers(tool string) bool { return slices.Contains(g.tools, tool) }

func (g *conversation) offeredTools() []trace.Tool {
	out := make([]trace.Tool, len(g.tools))
	for i, name := range g.tools {
		out[i] = shopTools().tools[name]
	}
	return out
}

func (g *conversation) systemPrompt() string {
	var b strings.Builder
	if g.prompt == "v6" {
		b.WriteString("You are the customer support assistant for " + shopName + ", an online shop. " +
			"Be concise and friendly. Use the tools to look up orders; never invent order details. " +
			"Refunds over " + money(g.region.currency, 20000) + " must be escalated to a human.")
	} else {
		b.WriteString("You are Nora, the support agent of " + shopName + ", an online outdoor and lifestyle shop.\n" +
			"Guidelines:\n- Only call a tool when you need information you don't have or must take an action.\n" +
			"- Don't call tools for greetings, thanks or general policy questions: answer from the policy below.\n" +
			"- Ask for the order number when it is needed and the customer hasn't given it.\n" +
			"- Politely decline requests unrelated to the shop.\n" +
			"- Escalate to a human when the customer asks for one or is upset after a failed resolution.\n" +
			"Policy: returns within 30 days of delivery; standard shipping 3–5 business days, express 1–2; " +
			"refunds reach the original payment method within 5 business days.")
	}
	b.WriteString("\nToday is " + g.day(0) + ".")
	if g.cust.signedIn {
		b.WriteString("\nSigned-in customer: " + g.cust.name + " (user_id " + g.cust.userID + ", " + g.cust.email + ").")
	}
	return b.String()
}

// callID returns a provider-style call id, unique within the trace.
func (g *conversation) callID() string {
	g.calls++
	b := make([]byte, 0, 29)
	b = append(b, "call_"...)
	for range 20 {
		b = append(b, alnum[g.r.IntN(len(alnum))])
	}
	return string(b)
}

func (g *conversation) say(role, content string) {
	g.msgs = append(g.msgs, trace.Message{Role: role, Content: content})
}

// decide appends one assistant message (a decision point) with its truth.
func (g *conversation) decide(content string, observed []trace.Call, right []plannedCall, m Mistake) {
	turn := len(g.msgs)
	g.msgs = append(g.msgs, trace.Message{Role: trace.RoleAssistant, Content: content, ToolCalls: observed})
	if !g.withTruth {
		return
	}
	e := Expected{ItemID: trace.ItemID(g.id, turn), TraceID: g.id, Turn: turn, NoCall: len(right) == 0, Mistake: m}
	for _, c := range right {
		e.Calls = append(e.Calls, trace.Call{Name: c.name, Arguments: c.args.json()})
		for _, f := range c.args {
			if rule, ok := looseArgs[c.name+"."+f.k]; ok {
				if e.ArgMatch == nil {
					e.ArgMatch = map[string]string{}
				}
				e.ArgMatch[f.k] = rule
			}
		}
	}
	g.expected = append(g.expected, e)
}

// looseArgs are the tool arguments (tool.arg) a reviewer would not hold to
// an exact value.
var looseArgs = map[string]string{
	toolEscalate + ".summary": "any",
	toolCancel + ".reason":    "any",
	toolSearch + ".query":     "fuzzy",
}

// answerTools appends the tool messages answering calls and reports whether
// any of them failed.
func (g *conversation) answerTools(calls []trace.Call, results []string) bool {
	failed := false
	for i, c := range calls {
		content := results[i]
		if strings.HasPrefix(content, `{"error"`) {
			failed = true
		}
		g.msgs = append(g.msgs, trace.Message{Role: trace.RoleTool, Name: c.Name, ToolCallID: c.ID, Content: content})
	}
	return failed
}

// play writes the whole conversation: system prompt, then 1–4 exchanges.
func (g *conversation) play() {
	g.say(trace.RoleSystem, g.systemPrompt())
	if g.r.IntN(100) < 12 {
		g.run(g.greeting())
	}
	if g.r.IntN(100) < 6 {
		g.run(g.noToolExchange())
	} else {
		g.run(g.mainIntent(g.cohort))
	}
	if g.r.IntN(100) < 25 {
		if g.r.IntN(2) == 0 {
			g.run(g.mainIntent(pick(g.r, cohorts)))
		} else {
			g.run(g.noToolExchange())
		}
	}
	if g.r.IntN(100) < 35 {
		g.run(g.thanks())
	}
}

// run plays one exchange: the user's message, the model's calls (with any
// deliberate mistake), the tools' answers and the model's reply.
func (g *conversation) run(ex exchange) {
	g.say(trace.RoleUser, ex.user)
	if len(ex.steps) == 0 {
		if m := g.roll(noToolMistakes); m == MistakeUnneededCall {
			if pc, ok := g.unneededCall(); ok {
				calls := []trace.Call{{ID: g.callID(), Name: pc.name, Arguments: pc.args.json()}}
				g.decide("", calls, nil, MistakeUnneededCall)
				g.answerTools(calls, []string{g.result(pc)})
			}
		}
		g.decide(ex.answer, nil, nil, MistakeNone)
		return
	}
	for _, step := range ex.steps {
		m := g.roll(callMistakes)
		if m == MistakeMissedCall {
			g.decide(g.missedCallReply(), nil, step, MistakeMissedCall)
			return
		}
		observed, results, applied := g.observe(step, m)
		g.decide(ex.preamble, observed, step, applied)
		ex.preamble = ""
		if !g.answerTools(observed, results) {
			continue
		}
		// A call failed: the right move now is to make it again, correctly.
		failed := failedCalls(step, results)
		if g.r.IntN(100) < 75 {
			retry := g.correctCalls(failed)
			g.decide("", retry, failed, MistakeNone)
			g.answerTools(retry, g.results(failed, make([]string, len(failed))))
			continue
		}
		g.decide(g.apology(), nil, failed, MistakeMissedCall)
		return
	}
	g.decide(ex.answer, nil, nil, MistakeNone)
}

// failedCalls are the planned calls whose observed counterpart got an error.
func failedCalls(step []plannedCall, results []string) []plannedCall {
	var out []plannedCall
	for i, pc := range step {
		if strings.HasPrefix(results[i], `{"error"`) {
			out = append(out, pc)
		}
	}
	return out
}

func (g *conversation) correctCalls(step []plannedCall) []trace.Call {
	out := make([]trace.Call, len(step))
	for i, pc := range step {
		out[i] = trace.Call{ID: g.callID(), Name: pc.name, Arguments: pc.args.json()}
	}
	return out
}

func (g *conversation) missedCallReply() string {
	return pick(g.r, []string{
		"I'm sorry, I don't have access to that information right now. Please check the Orders page of your account.",
		"Sure! Everything looks fine on our side — it should reach you in the next few days.",
		"I've taken care of that for you. Is there anything else I can help with?",
		"Could you contact our support team by email at help@northwind.example? They can look into it.",
	})
}

func (g *conversation) apology() string {
	return pick(g.r, []string{
		"I'm sorry, something went wrong on my side and I couldn't complete that. Could you try again later?",
		"Apologies — our system returned an error. Please try again in a few minutes.",
		"Hmm, I wasn't able to do that just now. A colleague will follow up by email.",
	})
}
