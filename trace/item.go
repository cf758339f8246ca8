package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
)

// NoTool is the class name used wherever a tool name is expected but no tool
// was (or should be) called.
const NoTool = "(none)"

// Item is one decision point of a trace, the unit reviewers label: the
// conversation before the Turn-th message (an assistant message), the tools
// available there, and the calls the production model actually made.
type Item struct {
	ID        string            `json:"id"`
	TraceID   string            `json:"trace_id"`
	Turn      int               `json:"turn"`
	Timestamp time.Time         `json:"timestamp,omitzero"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	Context   []Message         `json:"context"`
	Tools     []Tool            `json:"tools"`
	Observed  []Call            `json:"observed_calls"`
	InputHash string            `json:"input_hash"`
}

// FirstTool is the name of the first observed call, or NoTool.
func (it Item) FirstTool() string {
	if len(it.Observed) == 0 {
		return NoTool
	}
	return it.Observed[0].Name
}

// ItemID is the deterministic id of the decision point at message index turn
// of trace traceID: "it_" + the first 16 hex digits of sha256(traceID#turn).
func ItemID(traceID string, turn int) string {
	sum := sha256.Sum256([]byte(traceID + "#" + strconv.Itoa(turn)))
	return "it_" + hex.EncodeToString(sum[:])[:16]
}

// Items extracts one Item per assistant message of t, in message order.
// Each message is encoded once and the input hashes share a running hash of
// the growing context, so the cost is linear in the size of t.
func Items(t Trace) []Item {
	e := NewEncoder()
	tools, err := e.encodeTools(t.Tools)
	if err != nil {
		return itemsOneByOne(t)
	}
	msgs, ends, err := e.messages(t.Messages)
	if err != nil {
		return itemsOneByOne(t)
	}
	return itemsFrom(t, msgs, ends, sortedToolsJSON(t.Tools, tools))
}

// itemsOneByOne is Items computing each InputHash on its own, for traces
// whose JSON does not encode as a whole (never the case for a trace a Reader
// returned): a context before the unencodable message still hashes.
func itemsOneByOne(t Trace) []Item {
	var out []Item
	for i, m := range t.Messages {
		if m.Role == RoleAssistant {
			out = append(out, newItem(t, i, InputHash(t.Messages[:i:i], t.Tools)))
		}
	}
	return out
}

// newItem is the decision point at message index turn of t, with its input
// hash already computed.
func newItem(t Trace, turn int, inputHash string) Item {
	observed := t.Messages[turn].ToolCalls
	if observed == nil {
		observed = []Call{}
	}
	return Item{
		ID:        ItemID(t.ID, turn),
		TraceID:   t.ID,
		Turn:      turn,
		Timestamp: t.Timestamp,
		Metadata:  t.Metadata,
		Context:   t.Messages[:turn:turn],
		Tools:     t.Tools,
		Observed:  observed,
		InputHash: inputHash,
	}
}
