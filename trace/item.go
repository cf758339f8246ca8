package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
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
// whose JSON does not encode (never the case for a trace a Reader returned).
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

// InputHash is the hex sha256 of the canonical JSON of {context, tools}, with
// tools sorted by name: two decision points with the same hash would show a
// reviewer the same thing. InputHash, ContentHash and ToolHash are the
// definitions and the faster way to hash one value; an Encoder gives the same
// hashes for whole traces, sharing the work (TestEncodedMatchesTheDefinitions).
func InputHash(context []Message, tools []Tool) string {
	sorted := append([]Tool(nil), tools...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	if context == nil {
		context = []Message{}
	}
	payload := struct {
		Context []Message `json:"context"`
		Tools   []Tool    `json:"tools"`
	}{context, sorted}
	b, err := MarshalCanonical(payload)
	if err != nil {
		// Every field is a string, a slice of those, or RawMessage that was
		// canonicalised on import; encoding cannot fail for a valid Trace.
		b, _ = json.Marshal(payload)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ContentHash is the hex sha256 of the canonical JSON of the whole trace
// except its id, used to recognise a re-import of the same conversation.
//
// It returns the encoding's error rather than hashing nothing: two traces
// whose encoding failed must not share the hash of "" (dedup would take
// one for the other).
func ContentHash(t Trace) (string, error) {
	t.ID = ""
	b, err := MarshalCanonical(t)
	if err != nil {
		return "", fmt.Errorf("content hash: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ToolHash is the hex sha256 of the canonical JSON of a tool definition.
// Like ContentHash, it returns the encoding's error.
func ToolHash(tool Tool) (string, error) {
	b, err := MarshalCanonical(tool)
	if err != nil {
		return "", fmt.Errorf("tool hash of %q: %w", tool.Name, err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
