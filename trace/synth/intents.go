package synth

import (
	"strconv"
)

// plannedCall is one right call: a tool and its arguments.
type plannedCall struct {
	name string
	args obj
}

// exchange is one user message and what a good agent does with it: steps of
// calls (each step's calls made in parallel, the steps one after another)
// and the final reply. No steps means no tool is needed.
type exchange struct {
	user     string
	preamble string // assistant text alongside the first calls, often empty
	steps    [][]plannedCall
	answer   string
}

// intent is a kind of customer request.
type intent struct {
	cohort string
	needs  []string // tools that must be offered
	build  func(g *conversation) exchange
}

var intents = []intent{
	{cohortShipping, []string{toolOrderStatus}, (*conversation).orderStatus},
	{cohortShipping, []string{toolOrderStatus}, (*conversation).twoOrderStatus},
	{cohortShipping, []string{toolTrack}, (*conversation).trackShipment},
	{cohortShipping, []string{toolUpdateAddress}, (*conversation).updateAddress},
	{cohortShipping, []string{toolCancel}, (*conversation).cancelOrder},
	{cohortBilling, []string{toolRefund}, (*conversation).refundDuplicate},
	{cohortBilling, []string{toolCancel}, (*conversation).cancelOrder},
	{cohortBilling, []string{toolOrderHistory, toolLookup}, (*conversation).orderHistory},
	{cohortReturns, []string{toolReturnLabel}, (*conversation).returnLabel},
	{cohortReturns, []string{toolRefund}, (*conversation).refundDamaged},
	{cohortAccount, []string{toolOrderHistory, toolLookup}, (*conversation).orderHistory},
	{cohortAccount, []string{toolLookup}, (*conversation).lookupAccount},
	{cohortAccount, []string{toolEscalate}, (*conversation).escalate},
	{cohortProducts, []string{toolSearch}, (*conversation).searchProducts},
	{cohortProducts, []string{toolOrderStatus}, (*conversation).orderStatus},
}

// mainIntent picks a request of the cohort whose tools are offered.
func (g *conversation) mainIntent(cohort string) exchange {
	var fits []intent
	for _, in := range intents {
		if in.cohort != cohort {
			continue
		}
		ok := true
		for _, t := range in.needs {
			ok = ok && g.offers(t)
		}
		if ok {
			fits = append(fits, in)
		}
	}
	if len(fits) == 0 {
		return g.orderStatus()
	}
	return pick(g.r, fits).build(g)
}

func (g *conversation) slots(o order) *slots {
	addr := pick(g.r, g.region.cities)
	return &slots{order: o.id, email: g.cust.email, amount: money(g.region.currency, o.cents), tracking: o.tracking,
		carrier: carrierLabel(o.carrier), product: o.items[0].name, city: addr.city, street: addr.street,
		postal: addr.postal, country: addr.country, name: g.cust.first, n: strconv.Itoa(2 + g.r.IntN(4))}
}

func (g *conversation) preamble() string {
	if g.r.IntN(4) == 0 {
		return pick(g.r, []string{"Let me check that for you.", "One moment while I look that up.", "Sure, checking now."})
	}
	return ""
}

func (g *conversation) orderStatus() exchange {
	o := pick(g.r, g.orders)
	s := g.slots(o)
	user := fill(pick(g.r, []string{
		"Where is my order {order}?",
		"hi, can you tell me the status of order {order}",
		"I ordered {product} last week ({order}) and haven't heard anything. Has it shipped?",
		"Any update on {order}? It's been ages.",
		"order number {order} — when will it arrive?",
		"Has {order} been dispatched yet?",
	}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolOrderStatus, obj{{"order_id", o.id}}}}},
		answer: g.statusSentence(o)}
}

func (g *conversation) statusSentence(o order) string {
	switch o.status {
	case "placed", "packed":
		return "Your order " + o.id + " is " + o.status + " and should ship within 1–2 business days. Estimated delivery is " + o.eta + "."
	case "delivered":
		return "Order " + o.id + " was delivered by " + carrierLabel(o.carrier) + ". If you can't find it, let me know and I'll open an investigation."
	}
	return "Good news: " + o.id + " has shipped with " + carrierLabel(o.carrier) + " (tracking " + o.tracking + ") and should arrive by " + o.eta + "."
}

func (g *conversation) twoOrderStatus() exchange {
	if len(g.orders) < 2 {
		return g.orderStatus()
	}
	a, b := g.orders[0], g.orders[1]
	s := g.slots(a)
	s.order2 = b.id
	user := fill(pick(g.r, []string{
		"Can you check {order} and {order2} for me?",
		"I have two orders, {order} and {order2}. Where are they?",
		"status of {order} + {order2} please",
	}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolOrderStatus, obj{{"order_id", a.id}}}, {toolOrderStatus, obj{{"order_id", b.id}}}}},
		answer: g.statusSentence(a) + " " + g.statusSentence(b)}
}

func (g *conversation) trackShipment() exchange {
	o := pick(g.r, g.orders)
	s := g.slots(o)
	user := fill(pick(g.r, []string{
		"Can you track {tracking}? It's {carrier}.",
		"My {carrier} tracking number is {tracking} and it hasn't moved in 3 days",
		"tracking {tracking} ({carrier}) says exception, what does that mean?",
		"where is my parcel? {carrier} {tracking}",
	}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps: [][]plannedCall{{{toolTrack, obj{{"tracking_number", o.tracking}, {"carrier", o.carrier}}}}},
		answer: "Your " + carrierLabel(o.carrier) + " parcel " + o.tracking + " is in transit; the last scan was at the regional hub this morning. " +
			"Expected delivery is " + o.eta + "."}
}

func (g *conversation) updateAddress() exchange {
	o := g.pendingOrder()
	s := g.slots(o)
	user := fill(pick(g.r, []string{
		"I just moved — can you send {order} to {street}, {postal} {city} instead?",
		"Please change the delivery address of {order} to {street}, {city} {postal}, {country}.",
		"wrong address on {order}!! it should be {street}, {postal} {city}",
	}), s)
	addr := obj{{"street", s.street}, {"city", s.city}, {"postal_code", s.postal}, {"country", s.country}}
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolUpdateAddress, obj{{"order_id", o.id}, {"address", addr}}}}},
		answer: "Done! " + o.id + " will now be delivered to " + s.street + ", " + s.postal + " " + s.city + "."}
}

// pendingOrder returns an order that has not shipped, making one so if needed.
func (g *conversation) pendingOrder() order {
	for _, o := range g.orders {
		if o.status == "placed" || o.status == "packed" {
			return o
		}
	}
	g.orders[0].status = "placed"
	return g.orders[0]
}

func (g *conversation) deliveredOrder() order {
	for _, o := range g.orders {
		if o.status == "delivered" {
			return o
		}
	}
	g.orders[len(g.orders)-1].status = "delivered"
	return g.orders[len(g.orders)-1]
}

func (g *conversation) cancelOrder() exchange {
	o := g.pendingOrder()
	s := g.slots(o)
	reasons := []string{"ordered by mistake", "found it cheaper elsewhere", "no longer needed", "ordered the wrong size"}
	reason := pick(g.r, reasons)
	templates := []string{"Please cancel {order}, I " + reason + ".", "can I still cancel {order}? " + reason, "I want to cancel my order {order}"}
	i := g.r.IntN(len(templates))
	user := fill(templates[i], s)
	args := obj{{"order_id", o.id}}
	if i < 2 {
		args = args.with("reason", reason)
	}
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolCancel, args}}},
		answer: "Your order " + o.id + " has been cancelled. You'll get a confirmation email shortly and won't be charged."}
}

func (g *conversation) refundDuplicate() exchange {
	o := g.deliveredOrder()
	s := g.slots(o)
	user := fill(pick(g.r, []string{
		"I was charged twice for {order}! {amount} taken two times from my card.",
		"my bank shows two payments of {amount} for order {order}, please refund one",
		"Duplicate charge on {order} ({amount}). Can you fix it?",
	}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolRefund, obj{{"order_id", o.id}, {"amount", float64(o.cents) / 100}, {"reason", "duplicate_charge"}}}}},
		answer: "I'm sorry about that. I've refunded the duplicate charge of " + s.amount + " for " + o.id + "; it will reach your card within 5 business days."}
}

func (g *conversation) refundDamaged() exchange {
	o := g.deliveredOrder()
	it := o.items[0]
	s := g.slots(o)
	s.product = trimArticle(it.name)
	s.amount = money(g.region.currency, it.cents)
	user := fill(pick(g.r, []string{
		"The {product} from order {order} arrived broken. I'd like my {amount} back.",
		"{product} in {order} was damaged in the box, can I get a refund of {amount}?",
		"received {order} today and the {product} is smashed. refund please ({amount})",
	}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolRefund, obj{{"order_id", o.id}, {"amount", float64(it.cents) / 100}, {"reason", "damaged"}}}}},
		answer: "I'm sorry it arrived damaged. I've issued a refund of " + s.amount + " for the " + s.product + "; you don't need to send it back."}
}

func (g *conversation) returnLabel() exchange {
	o := g.deliveredOrder()
	it := o.items[0]
	s := g.slots(o)
	s.product = trimArticle(it.name)
	why := pick(g.r, []struct{ reason, say string }{
		{"does_not_fit", "it doesn't fit"}, {"no_longer_needed", "I don't need it anymore"}, {"wrong_item", "you sent me the wrong item"},
	})
	reason, say := why.reason, why.say
	user := fill(pick(g.r, []string{
		"I'd like to return the {product} from {order}, " + say + ".",
		"how do I send back {product} ({order})? " + say,
		"Return label for {order} please — the {product}, " + say,
	}), s)
	items := []obj{{{"sku", it.sku}, {"quantity", it.qty}}}
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolReturnLabel, obj{{"order_id", o.id}, {"items", items}, {"reason", reason}}}}},
		answer: "Here is your prepaid return label for the " + s.product + ". Drop the parcel off within 14 days; your refund is issued once it reaches our warehouse."}
}

func (g *conversation) orderHistory() exchange {
	s := g.slots(g.orders[0])
	limit := 2 + g.r.IntN(4)
	s.n = strconv.Itoa(limit)
	history := plannedCall{toolOrderHistory, obj{{"user_id", g.cust.userID}, {"limit", limit}}}
	ask := pick(g.r, []string{
		"can you show me my last {n} orders?",
		"What did I order recently? Just the last {n} please.",
		"I need my {n} most recent orders for my expense report",
	})
	if g.cust.signedIn {
		return exchange{user: casual(g.r, fill(ask, s)), preamble: g.preamble(),
			steps: [][]plannedCall{{history}}, answer: g.historySentence(limit)}
	}
	user := fill(ask, s) + " " + fill(pick(g.r, []string{"My email is {email}.", "(account {email})", "I'm {email}"}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolLookup, obj{{"email", g.cust.email}}}}, {history}},
		answer: g.historySentence(limit)}
}

func (g *conversation) historySentence(limit int) string {
	out := "Here are your most recent orders:"
	for i, o := range g.orders {
		if i == limit {
			break
		}
		out += "\n- " + o.id + " (" + o.placed + "): " + money(g.region.currency, o.cents) + ", " + o.status
	}
	return out
}

func (g *conversation) lookupAccount() exchange {
	s := g.slots(g.orders[0])
	user := fill(pick(g.r, []string{
		"Do I have an account with you? My email is {email}",
		"I forgot which email I used... try {email}?",
		"can you find my account, {email}",
	}), s)
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolLookup, obj{{"email", g.cust.email}}}}},
		answer: "Yes, " + g.cust.first + " — I found your account under " + g.cust.email + ". You're a " + g.cust.tier + " member. How can I help?"}
}

func (g *conversation) escalate() exchange {
	o := pick(g.r, g.orders)
	s := g.slots(o)
	asks := []struct{ text, priority string }{
		{"This is the third time I'm writing about {order}. I want to talk to a real person NOW.", "high"},
		{"Can I speak to a human please? The bot keeps giving me the same answer about {order}.", "normal"},
		{"I'm really frustrated, {order} never arrived and nobody helps. Get me a manager.", "high"},
	}
	ask := pick(g.r, asks)
	user, priority := fill(ask.text, s), ask.priority
	summary := "Customer " + g.cust.name + " asks for a human agent about order " + o.id + " after repeated contacts."
	return exchange{user: user,
		steps:  [][]plannedCall{{{toolEscalate, obj{{"summary", summary}, {"priority", priority}}}}},
		answer: "I understand, and I'm sorry for the trouble. I've passed your case to a colleague; a human agent will join this chat in a few minutes."}
}

func (g *conversation) searchProducts() exchange {
	product := pick(g.r, products)
	s := &slots{product: product}
	inStock := g.r.IntN(2) == 0
	var user string
	args := obj{{"query", trimArticle(product)}}
	if inStock {
		user = fill(pick(g.r, []string{"Do you have {product} in stock? I need it by Friday.", "any {product} available to ship today?"}), s)
		args = args.with("in_stock_only", true)
	} else {
		user = fill(pick(g.r, []string{"I'm looking for {product}, what do you have?", "show me {product} options", "Do you sell {product}?"}), s)
	}
	if g.r.IntN(3) == 0 {
		user += " Just the top 5."
		args = args.with("max_results", 5)
	}
	return exchange{user: casual(g.r, user), preamble: g.preamble(),
		steps:  [][]plannedCall{{{toolSearch, args}}},
		answer: "Here are the best matches for " + trimArticle(product) + ". Would you like more details on any of them?"}
}

func trimArticle(s string) string {
	for _, a := range []string{"a ", "an "} {
		if len(s) > len(a) && s[:len(a)] == a {
			return s[len(a):]
		}
	}
	return s
}

func (g *conversation) greeting() exchange {
	return exchange{user: pick(g.r, greetings), answer: pick(g.r, []string{
		"Hi! I'm Nora from " + shopName + ". How can I help you today?",
		"Hello! What can I do for you?",
		"Hi there — how can I help?",
	})}
}

func (g *conversation) thanks() exchange {
	return exchange{user: pick(g.r, thanks), answer: pick(g.r, []string{
		"You're welcome, " + g.cust.first + "! Have a great day.",
		"Happy to help! Anything else, just ask.",
		"My pleasure — take care!",
	})}
}

// noToolExchange is a policy or out-of-scope question.
func (g *conversation) noToolExchange() exchange {
	if g.r.IntN(2) == 0 {
		p := pick(g.r, policyQuestions)
		return exchange{user: casual(g.r, p.q), answer: p.a}
	}
	s := &slots{city: pick(g.r, g.region.cities).city}
	return exchange{user: fill(pick(g.r, outOfScope), s),
		answer: "I'm sorry, I can only help with orders, shipping, returns and your " + shopName + " account. Is there anything like that I can do for you?"}
}
