package synth

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/goldtrace/goldtrace/trace"
)

// Names of the shop's tools.
const (
	toolOrderStatus   = "get_order_status"
	toolOrderHistory  = "get_order_history"
	toolTrack         = "track_shipment"
	toolRefund        = "issue_refund"
	toolCancel        = "cancel_order"
	toolUpdateAddress = "update_shipping_address"
	toolSearch        = "search_products"
	toolEscalate      = "escalate_to_human"
	toolLookup        = "lookup_customer"
	toolReturnLabel   = "create_return_label"
)

// toolSpec is a tool definition written as readable JSON Schema text.
type toolSpec struct {
	name, description, schema string
}

var toolSpecs = []toolSpec{
	{toolOrderStatus, "Current fulfilment status of one order: placed, packed, shipped, delivered or cancelled, with carrier and tracking number once shipped.", `{
		"type": "object",
		"properties": {
			"order_id": {"type": "string", "description": "Order number as shown to the customer, e.g. ORD-48213.", "pattern": "^ORD-[0-9]{5}$"}
		},
		"required": ["order_id"],
		"additionalProperties": false}`},
	{toolOrderHistory, "The customer's most recent orders, newest first, with date, total and status.", `{
		"type": "object",
		"properties": {
			"user_id": {"type": "string", "description": "Internal customer id, e.g. u_10482 (see lookup_customer)."},
			"limit": {"type": "integer", "description": "How many orders to return.", "minimum": 1, "maximum": 20, "default": 5}
		},
		"required": ["user_id"],
		"additionalProperties": false}`},
	{toolTrack, "Live carrier tracking events for a shipment.", `{
		"type": "object",
		"properties": {
			"tracking_number": {"type": "string", "description": "Carrier tracking number."},
			"carrier": {"type": "string", "enum": ["ups", "fedex", "dhl", "usps", "royal_mail"], "description": "Carrier that issued the tracking number."}
		},
		"required": ["tracking_number", "carrier"],
		"additionalProperties": false}`},
	{toolRefund, "Refund all or part of an order to the original payment method. Only for delivered or cancelled orders, or duplicate charges.", `{
		"type": "object",
		"properties": {
			"order_id": {"type": "string", "description": "Order number, e.g. ORD-48213."},
			"amount": {"type": "number", "description": "Amount to refund in the order's currency.", "exclusiveMinimum": 0},
			"reason": {"type": "string", "enum": ["damaged", "not_received", "wrong_item", "duplicate_charge", "late_delivery", "other"]}
		},
		"required": ["order_id", "amount", "reason"],
		"additionalProperties": false}`},
	{toolCancel, "Cancel an order that has not shipped yet.", `{
		"type": "object",
		"properties": {
			"order_id": {"type": "string", "description": "Order number, e.g. ORD-48213."},
			"reason": {"type": "string", "description": "Free-text reason given by the customer."}
		},
		"required": ["order_id"],
		"additionalProperties": false}`},
	{toolUpdateAddress, "Change the delivery address of an order that has not shipped yet.", `{
		"type": "object",
		"properties": {
			"order_id": {"type": "string", "description": "Order number, e.g. ORD-48213."},
			"address": {
				"type": "object",
				"description": "The new delivery address.",
				"properties": {
					"street": {"type": "string"},
					"city": {"type": "string"},
					"postal_code": {"type": "string"},
					"country": {"type": "string", "description": "ISO 3166-1 alpha-2 code, e.g. FR."}
				},
				"required": ["street", "city", "postal_code", "country"],
				"additionalProperties": false
			}
		},
		"required": ["order_id", "address"],
		"additionalProperties": false}`},
	{toolSearch, "Search the catalogue by keywords.", `{
		"type": "object",
		"properties": {
			"query": {"type": "string", "description": "Keywords, e.g. 'wireless earbuds'."},
			"max_results": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10},
			"in_stock_only": {"type": "boolean", "default": false, "description": "Only products that can ship today."}
		},
		"required": ["query"],
		"additionalProperties": false}`},
	{toolEscalate, "Hand the conversation to a human agent. Use when the customer asks for a person, is upset after a failed resolution, or the request is outside what the tools can do.", `{
		"type": "object",
		"properties": {
			"summary": {"type": "string", "description": "One or two sentences for the human agent."},
			"priority": {"type": "string", "enum": ["low", "normal", "high", "urgent"]}
		},
		"required": ["summary", "priority"],
		"additionalProperties": false}`},
	{toolLookup, "Find a customer account by email address. Returns the user id, name and loyalty tier.", `{
		"type": "object",
		"properties": {
			"email": {"type": "string", "format": "email", "description": "Email address on the account."}
		},
		"required": ["email"],
		"additionalProperties": false}`},
	{toolReturnLabel, "Create a prepaid return label for some items of a delivered order.", `{
		"type": "object",
		"properties": {
			"order_id": {"type": "string", "description": "Order number, e.g. ORD-48213."},
			"items": {
				"type": "array",
				"minItems": 1,
				"items": {
					"type": "object",
					"properties": {
						"sku": {"type": "string", "description": "Product SKU, e.g. SKU-30412."},
						"quantity": {"type": "integer", "minimum": 1}
					},
					"required": ["sku", "quantity"]
				}
			},
			"reason": {"type": "string", "enum": ["damaged", "wrong_item", "no_longer_needed", "does_not_fit", "other"]}
		},
		"required": ["order_id", "items", "reason"],
		"additionalProperties": false}`},
}

// catalog is every tool definition in canonical JSON, by name, plus the
// definitions pre-encoded as they appear in a trace line.
type catalog struct {
	tools   map[string]trace.Tool
	encoded map[string][]byte
}

func newCatalog() catalog {
	c := catalog{tools: map[string]trace.Tool{}, encoded: map[string][]byte{}}
	for _, s := range toolSpecs {
		params, err := trace.Canonical(json.RawMessage(s.schema))
		if err != nil {
			// The schemas are literals above; TestCatalogSchemasAreValid guards them.
			panic(fmt.Sprintf("synth: schema of %s: %v", s.name, err))
		}
		t := trace.Tool{Name: s.name, Description: s.description, Parameters: params}
		c.tools[s.name] = t
		c.encoded[s.name] = appendTool(nil, t)
	}
	return c
}

// shopTools is built on first use, not at package initialisation: every
// goldtrace command links this package, few of them write traces.
var shopTools = sync.OnceValue(newCatalog)

// toolSet is the list of tools a deployment offers, by cohort and prompt
// version: v7 offers the whole catalogue, v6 a cohort-specific subset.
func toolSet(cohort, promptVersion string) []string {
	if promptVersion == "v7" {
		return []string{toolLookup, toolOrderStatus, toolOrderHistory, toolTrack, toolCancel,
			toolUpdateAddress, toolRefund, toolReturnLabel, toolSearch, toolEscalate}
	}
	base := []string{toolLookup, toolOrderStatus, toolOrderHistory}
	switch cohort {
	case cohortShipping:
		base = append(base, toolTrack, toolUpdateAddress, toolCancel)
	case cohortBilling:
		base = append(base, toolRefund, toolCancel)
	case cohortReturns:
		base = append(base, toolReturnLabel, toolRefund, toolTrack)
	case cohortAccount:
		base = append(base, toolUpdateAddress, toolCancel)
	case cohortProducts:
		base = append(base, toolSearch)
	}
	return append(base, toolEscalate)
}
