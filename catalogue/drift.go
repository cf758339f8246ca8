package catalogue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/trace"
)

// Kinds of finding. Every kind makes the item stale.
const (
	KindToolRemoved   = "tool_removed"       // the expected tool is gone, no likely new name
	KindToolRenamed   = "tool_renamed"       // gone, and a current tool looks like its new name
	KindArgsInvalid   = "args_invalid"       // an expected argument no longer validates
	KindNewlyRequired = "newly_required"     // a field optional at labeling time is now required and the gold lacks it
	KindEnumRemoved   = "enum_value_removed" // the gold uses an enum value the schema no longer offers
)

// Finding is one reason an item's gold no longer fits the catalogue.
type Finding struct {
	Kind string `json:"kind"`
	Call int    `json:"call"` // 1-based expected call
	Tool string `json:"tool"`
	// Field is the argument concerned ("order_id", "flights[0].cabin"), ""
	// for the whole call.
	Field  string `json:"field,omitempty"`
	Detail string `json:"detail"`
	// Suggest is the likely new name of a renamed tool, and Similarity how
	// alike it is (0–1: description, parameter names and name words).
	Suggest    string   `json:"suggest,omitempty"`
	Similarity *float64 `json:"similarity,omitempty"`
}

// ItemDrift is one stale gold item.
type ItemDrift struct {
	ID       string    `json:"id"`
	Findings []Finding `json:"findings"`
}

// Change is how the catalogue changed between the gold and now, by tool
// name: a tool is changed when any version recorded in the gold differs from
// the current one.
type Change struct {
	Removed   []string `json:"removed"`
	Added     []string `json:"added"`
	Changed   []string `json:"changed"`
	Unchanged int      `json:"unchanged"`
}

// Report is the drift of one gold set against a current catalogue.
type Report struct {
	Gold      string      `json:"gold"`
	Tools     string      `json:"tools"` // where the current catalogue came from
	Items     int         `json:"items"`
	Stale     int         `json:"stale"`
	Catalogue Change      `json:"catalogue"`
	StaleIDs  []string    `json:"stale_ids"`
	Details   []ItemDrift `json:"items_stale"`
}

// Drift checks every record's expected calls against current.
func Drift(records []gold.Record, current []trace.Tool) Report {
	cur := map[string]trace.Tool{}
	curHash := map[string]string{}
	for _, t := range current {
		cur[t.Name] = t
		curHash[t.Name] = toolHash(t)
	}
	validators := map[string]*review.ArgsValidator{}
	out := Report{Items: len(records), StaleIDs: []string{}, Details: []ItemDrift{}}
	old := map[string]map[string]bool{} // tool name → hashes recorded in the gold
	for _, r := range records {
		byName := map[string]trace.Tool{}
		for _, t := range r.AvailableTools {
			byName[t.Name] = t
			if old[t.Name] == nil {
				old[t.Name] = map[string]bool{}
			}
			old[t.Name][toolHash(t)] = true
		}
		var findings []Finding
		for i, c := range r.ExpectedCalls {
			was, hadIt := byName[c.Tool]
			now, ok := cur[c.Tool]
			if !ok {
				findings = append(findings, missingTool(i+1, c.Tool, was, hadIt, byName, current))
				continue
			}
			if hadIt && toolHash(was) == curHash[c.Tool] {
				continue // the very tool the gold was labeled against
			}
			v := validators[c.Tool]
			if v == nil {
				v = review.NewArgsValidator(now)
				validators[c.Tool] = v
			}
			findings = append(findings, argDrift(i+1, c.Tool, c.Args, was.Parameters, now.Parameters, v)...)
		}
		if len(findings) > 0 {
			out.Stale++
			out.StaleIDs = append(out.StaleIDs, r.ID)
			out.Details = append(out.Details, ItemDrift{ID: r.ID, Findings: findings})
		}
	}
	out.Catalogue = catalogueChange(old, curHash)
	return out
}

func toolHash(t trace.Tool) string {
	h, _ := dataset.ShortToolHash(t) // "" for a tool that does not encode: never equal
	return h
}

// catalogueChange compares the tool versions recorded in the gold with the
// current catalogue.
func catalogueChange(old map[string]map[string]bool, cur map[string]string) Change {
	ch := Change{Removed: []string{}, Added: []string{}, Changed: []string{}}
	for name, hashes := range old {
		h, ok := cur[name]
		switch {
		case !ok:
			ch.Removed = append(ch.Removed, name)
		case len(hashes) > 1 || !hashes[h]:
			ch.Changed = append(ch.Changed, name)
		default:
			ch.Unchanged++
		}
	}
	for name := range cur {
		if _, ok := old[name]; !ok {
			ch.Added = append(ch.Added, name)
		}
	}
	sort.Strings(ch.Removed)
	sort.Strings(ch.Added)
	sort.Strings(ch.Changed)
	return ch
}

// missingTool is the finding for an expected tool the catalogue lacks: a
// rename when a tool the item did not offer looks like it, else removed.
func missingTool(call int, name string, was trace.Tool, hadIt bool, offered map[string]trace.Tool, current []trace.Tool) Finding {
	f := Finding{Kind: KindToolRemoved, Call: call, Tool: name, Detail: fmt.Sprintf("%s is not in the current catalogue", name)}
	if !hadIt {
		was = trace.Tool{Name: name}
	}
	best, score := "", 0.0
	for _, t := range current {
		if _, wasOffered := offered[t.Name]; wasOffered {
			continue // it existed beside the old tool: not its new name
		}
		if s := Similarity(was, t); s > score {
			best, score = t.Name, s
		}
	}
	if best != "" && score >= renameThreshold {
		s := round2(score)
		f.Kind, f.Suggest, f.Similarity = KindToolRenamed, best, &s
		f.Detail = fmt.Sprintf("%s is not in the current catalogue; likely renamed to %s (similarity %.2f)", name, best, s)
	}
	return f
}

// argDrift compares one expected call's arguments with the tool's schema
// then (at labeling time) and now.
func argDrift(call int, tool string, args, was, now json.RawMessage, v *review.ArgsValidator) []Finding {
	var argv any
	if err := json.Unmarshal(args, &argv); err != nil {
		argv = map[string]any{}
	}
	var oldSchema, newSchema map[string]any
	_ = json.Unmarshal(was, &oldSchema)
	_ = json.Unmarshal(now, &newSchema)
	var out []Finding
	covered := map[string]bool{}
	walkSchemas("", argv, oldSchema, newSchema, func(kind, field, detail string) {
		covered[field] = true
		out = append(out, Finding{Kind: kind, Call: call, Tool: tool, Field: field, Detail: detail})
	})
	for _, p := range v.Validate(args) {
		if covered[p.Field] {
			continue
		}
		out = append(out, Finding{Kind: KindArgsInvalid, Call: call, Tool: tool, Field: p.Field, Detail: p.Message})
	}
	return out
}

// walkSchemas walks the gold's argument value with the old and new schema
// nodes beside it and reports fields newly required and enum values gone.
func walkSchemas(field string, v any, oldS, newS map[string]any, report func(kind, field, detail string)) {
	if newS == nil {
		return
	}
	if enum, ok := newS["enum"].([]any); ok && v != nil {
		if !containsValue(enum, v) {
			if oldEnum, ok := oldS["enum"].([]any); ok && containsValue(oldEnum, v) {
				report(KindEnumRemoved, field, fmt.Sprintf("%s is %s, a value the schema no longer allows (now one of %s)", nameOf(field), jsonText(v), enumText(enum)))
			}
		}
	}
	switch x := v.(type) {
	case map[string]any:
		oldReq := stringSet(oldS["required"])
		oldProps, _ := oldS["properties"].(map[string]any)
		for _, req := range stringList(newS["required"]) {
			// Without the schema at labeling time nothing is "newly" required:
			// validation reports the missing field.
			if _, has := x[req]; has || oldS == nil || oldReq[req] {
				continue
			}
			f := joinField(field, req)
			detail := fmt.Sprintf("%s is now required; it was optional when the item was labeled and the gold has no value for it", f)
			if _, existed := oldProps[req]; !existed {
				detail = fmt.Sprintf("%s is a new required field; the gold has no value for it", f)
			}
			report(KindNewlyRequired, f, detail)
		}
		newProps, _ := newS["properties"].(map[string]any)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			o, _ := oldProps[k].(map[string]any)
			n, _ := newProps[k].(map[string]any)
			walkSchemas(joinField(field, k), x[k], o, n, report)
		}
	case []any:
		o, _ := oldS["items"].(map[string]any)
		n, _ := newS["items"].(map[string]any)
		for i, e := range x {
			walkSchemas(fmt.Sprintf("%s[%d]", field, i), e, o, n, report)
		}
	}
}

func containsValue(enum []any, v any) bool {
	want := jsonText(v)
	for _, e := range enum {
		if jsonText(e) == want {
			return true
		}
	}
	return false
}

func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

func enumText(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		parts[i] = jsonText(e)
	}
	return strings.Join(parts, ", ")
}

func stringList(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, e := range list {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func stringSet(v any) map[string]bool {
	out := map[string]bool{}
	for _, s := range stringList(v) {
		out[s] = true
	}
	return out
}

func joinField(parent, child string) string {
	if parent == "" {
		return child
	}
	return parent + "." + child
}

func nameOf(field string) string {
	if field == "" {
		return "the arguments"
	}
	return field
}
