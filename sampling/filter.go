package sampling

import (
	"fmt"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// NoMetaValue is the stratum of items whose trace lacks the metadata key
// they are stratified by.
const NoMetaValue = "(unset)"

// Turn selections.
const (
	TurnsAll     = "all"
	TurnsCalls   = "calls"
	TurnsNoCalls = "no-calls"
)

// Condition is one KEY=VALUE filter; Key is "tool" (the first observed tool,
// "(none)" when there was no call) or "meta.NAME".
type Condition struct {
	Key   string
	Value string
}

// Filter selects decision points the way the store's candidate query does,
// for items read from a file.
type Filter struct {
	Where        []Condition // all must hold
	Since, Until time.Time   // trace timestamp in [Since, Until); zero = open
	Turns        string      // TurnsAll (or ""), TurnsCalls, TurnsNoCalls
}

// ValidKey checks a stratify or filter key: "tool" or "meta.NAME".
func ValidKey(key string) error {
	if key == "tool" {
		return nil
	}
	if name, ok := strings.CutPrefix(key, "meta."); ok && name != "" {
		return nil
	}
	return fmt.Errorf("unknown key %q: use tool or meta.NAME", key)
}

// ParseCondition parses "KEY=VALUE".
func ParseCondition(s string) (Condition, error) {
	key, value, ok := strings.Cut(s, "=")
	if !ok {
		return Condition{}, fmt.Errorf("%q: want KEY=VALUE", s)
	}
	if err := ValidKey(key); err != nil {
		return Condition{}, err
	}
	return Condition{Key: key, Value: value}, nil
}

// Value is what key means for an item: its first observed tool for "tool",
// the trace's metadata value for "meta.NAME" (ok is false when it has none).
func Value(key string, it trace.Item) (string, bool) {
	if key == "tool" {
		return it.FirstTool(), true
	}
	v, ok := it.Metadata[strings.TrimPrefix(key, "meta.")]
	return v, ok
}

// StratumOf is the stratum of it when stratifying by key ("" = one stratum).
func StratumOf(key string, it trace.Item) string {
	if key == "" {
		return ""
	}
	v, ok := Value(key, it)
	if !ok {
		return NoMetaValue
	}
	return v
}

// Match reports whether it passes the filter.
func (f Filter) Match(it trace.Item) bool {
	for _, c := range f.Where {
		if v, ok := Value(c.Key, it); !ok || v != c.Value {
			return false
		}
	}
	if !f.Since.IsZero() && (it.Timestamp.IsZero() || it.Timestamp.Unix() < f.Since.Unix()) {
		return false
	}
	if !f.Until.IsZero() && (it.Timestamp.IsZero() || it.Timestamp.Unix() >= f.Until.Unix()) {
		return false
	}
	switch f.Turns {
	case TurnsCalls:
		return len(it.Observed) > 0
	case TurnsNoCalls:
		return len(it.Observed) == 0
	}
	return true
}
