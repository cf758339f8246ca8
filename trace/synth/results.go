package synth

import (
	"strconv"
)

// result is what the shop's backend answers to a call with well-formed
// arguments: compact JSON, an {"error":…} object when the call cannot work
// (unknown order, customer or tracking number).
//
// It is long because it is a table: one case per tool of the synthetic
// shop.
func (g *conversation) result(pc plannedCall) string {
	a := pc.args
	var out obj
	switch pc.name {
	case toolOrderStatus:
		o, ok := g.order(a.get("order_id"))
		if !ok {
			return notFound("order", a.get("order_id"))
		}
		out = obj{{"order_id", o.id}, {"status", o.status}, {"placed_at", o.placed}, {"total", float64(o.cents) / 100}}
		if o.status != "placed" && o.status != "packed" {
			out = append(out, kv{"carrier", o.carrier}, kv{"tracking_number", o.tracking})
		}
		if o.status != "delivered" {
			out = append(out, kv{"estimated_delivery", o.eta})
		}
	case toolOrderHistory:
		if a.get("user_id") != g.cust.userID {
			return notFound("customer", a.get("user_id"))
		}
		limit, ok := a.get("limit").(int)
		if !ok {
			limit = 5
		}
		var list []obj
		for i, o := range g.orders {
			if i == limit {
				break
			}
			list = append(list, obj{{"order_id", o.id}, {"placed_at", o.placed}, {"total", float64(o.cents) / 100}, {"status", o.status}})
		}
		out = obj{{"user_id", g.cust.userID}, {"orders", list}}
	case toolTrack:
		var found *order
		for i := range g.orders {
			if g.orders[i].tracking == a.get("tracking_number") && g.orders[i].carrier == a.get("carrier") {
				found = &g.orders[i]
			}
		}
		if found == nil {
			return notFound("shipment", a.get("tracking_number"))
		}
		out = obj{{"carrier", found.carrier}, {"status", "in_transit"}, {"estimated_delivery", found.eta}, {"events", []obj{
			{{"time", g.day(-2) + "T06:12:00Z"}, {"location", "origin facility"}, {"description", "Picked up"}},
			{{"time", g.day(-1) + "T21:40:00Z"}, {"location", "regional hub"}, {"description", "Arrived at sort facility"}},
		}}}
	case toolRefund:
		o, ok := g.order(a.get("order_id"))
		if !ok {
			return notFound("order", a.get("order_id"))
		}
		out = obj{{"refund_id", "rf_" + digits(g.r, 8)}, {"order_id", o.id}, {"amount", a.get("amount")}, {"status", "pending"}, {"expected_in_days", 5}}
	case toolCancel:
		o, ok := g.order(a.get("order_id"))
		if !ok {
			return notFound("order", a.get("order_id"))
		}
		if o.status != "placed" && o.status != "packed" {
			return `{"error":"order ` + o.id + ` has already shipped and cannot be cancelled"}`
		}
		out = obj{{"order_id", o.id}, {"status", "cancelled"}, {"refund_amount", float64(o.cents) / 100}}
	case toolUpdateAddress:
		o, ok := g.order(a.get("order_id"))
		if !ok {
			return notFound("order", a.get("order_id"))
		}
		out = obj{{"order_id", o.id}, {"status", "address_updated"}, {"address", a.get("address")}}
	case toolSearch:
		max, ok := a.get("max_results").(int)
		if !ok || max > 3 {
			max = 3
		}
		var list []obj
		for i := 0; i < max; i++ {
			list = append(list, obj{{"sku", "SKU-" + digits(g.r, 5)}, {"name", pick(g.r, []string{"Trailhead Pro", "Essentials", "Urban", "Summit", "Classic"}) + " " + str(a.get("query"))},
				{"price", float64(999+g.r.IntN(15000)) / 100}, {"in_stock", i != 2 || a.get("in_stock_only") == true}})
		}
		out = obj{{"results", list}, {"total_matches", max + g.r.IntN(40)}}
	case toolEscalate:
		out = obj{{"ticket_id", "HD-" + digits(g.r, 6)}, {"queue", "tier2"}, {"estimated_wait_minutes", 2 + g.r.IntN(15)}}
	case toolLookup:
		if a.get("email") != g.cust.email {
			return notFound("customer", a.get("email"))
		}
		out = obj{{"user_id", g.cust.userID}, {"name", g.cust.name}, {"tier", g.cust.tier}, {"orders_count", len(g.orders)}}
	case toolReturnLabel:
		o, ok := g.order(a.get("order_id"))
		if !ok {
			return notFound("order", a.get("order_id"))
		}
		out = obj{{"return_id", "RMA-" + digits(g.r, 7)}, {"order_id", o.id}, {"label_url", "https://returns.northwind.example/l/" + strconv.Itoa(100000+g.r.IntN(900000))}, {"drop_off_by", g.day(14)}}
	default:
		return `{"error":"unknown tool \"` + pc.name + `\""}`
	}
	return string(out.json())
}

func (g *conversation) order(id any) (order, bool) {
	for _, o := range g.orders {
		if o.id == id {
			return o, true
		}
	}
	return order{}, false
}

func notFound(what string, key any) string {
	s, _ := key.(string)
	return string(obj{{"error", "no " + what + " found for \"" + s + "\""}}.json())
}
