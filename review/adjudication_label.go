package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// ParseAdjudicationLabel reads the label a lead gives as an item's gold
// (goldtrace resolve --label): one Label JSON object (docs/formats.md, "Labels"; the
// reviewer is ignored, unknown fields are errors). Its item, when given,
// must be item. A call decision needs a call with a tool; a call without
// arguments gets {}; a no_call decision keeps no calls.
func ParseAdjudicationLabel(data []byte, item string) (Label, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var l Label
	if err := dec.Decode(&l); err != nil {
		return l, fmt.Errorf("not a Label JSON object: %w", err)
	}
	if dec.More() {
		return l, errors.New("more than one JSON value; give one label")
	}
	if l.Item != "" && l.Item != item {
		return l, fmt.Errorf("label is for item %s, not %s", l.Item, item)
	}
	switch l.Decision {
	case DecisionCall:
		if len(l.Calls) == 0 {
			return l, errors.New("decision call needs at least one call")
		}
	case DecisionNoCall:
		l.Calls = nil
	default:
		return l, fmt.Errorf("decision %q: must be call or no_call", l.Decision)
	}
	for i, c := range l.Calls {
		if c.Tool == "" {
			return l, fmt.Errorf("call %d has no tool", i+1)
		}
		if len(c.Args) == 0 || string(c.Args) == "null" {
			l.Calls[i].Args = json.RawMessage(`{}`)
		}
	}
	l.Item, l.Reviewer = item, ""
	return l, nil
}
