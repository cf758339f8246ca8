package dataset

import (
	"encoding/json"

	"github.com/goldtrace/goldtrace/trace"
)

// canonical is trace.Canonical without its copy: JSON that is already in
// canonical form (what the store holds) is returned as it is.
func canonical(raw json.RawMessage) (json.RawMessage, error) {
	if trace.IsCanonical(raw) {
		return raw, nil
	}
	return trace.Canonical(raw)
}
