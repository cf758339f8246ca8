package score

import (
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// Case is one gold item as the scorer sees it (the cmd converts a
// dataset.Record into one).
type Case struct {
	ID       string
	Expected []gold.ExpectedCall // empty: no tool should be called
	// Acceptable holds other complete call lists that also count as correct.
	Acceptable [][]gold.ExpectedCall
	// Tools are the tools the model could call: their names decide
	// hallucinated_tool, their parameter schemas give defaults (and types in
	// the BFCL profile).
	Tools []trace.Tool
	Meta  map[string]string
	// Trace is the id of the trace the item comes from ("" when unknown):
	// the futureagi profile scores each trace's items as one trajectory.
	Trace string
}

// Prediction is what a model did on one item.
type Prediction struct {
	Calls []trace.Call // none: the model called no tool
	// Missing marks an item the predictions file had no line for; it is
	// scored as no call and listed in the report.
	Missing bool
	// Errors holds each call's outcome (CallUnknown, CallOK, CallFailed)
	// when the prediction reports them; nil when none does.
	Errors []int8
	// Catalogue is the tools the prediction says the model was offered,
	// name → short tool hash (catalogue.go); nil when it does not say.
	Catalogue map[string]string
}

// ErrorKind names why an item failed. Each failing item gets exactly one.
type ErrorKind string

// Error kinds in precedence order: a failing item gets the first that
// applies, following the model's decision pipeline (call at all → which
// tool → parseable arguments → argument keys → types → values → number of
// calls).
const (
	// The gold list is empty and the model called a tool (an unparseable call
	// included: it is never a correct abstention).
	KindShouldNotCall ErrorKind = "should_not_call"
	// The gold list has calls and the model called nothing.
	KindShouldCall ErrorKind = "should_call"
	// A predicted call names a tool that is not among the available tools.
	KindHallucinatedTool ErrorKind = "hallucinated_tool"
	// An expected call is paired with a call of another (available) tool.
	KindWrongTool ErrorKind = "wrong_tool"
	// A predicted call's arguments are not a JSON object.
	KindUnparseableArgs ErrorKind = "unparseable_args"
	// A required argument is absent.
	KindMissingArg ErrorKind = "missing_arg"
	// An argument the gold does not name was passed (other than with its
	// schema default, which is the same as omitting it).
	KindUnexpectedArg ErrorKind = "unexpected_arg"
	// An argument has another JSON type than every accepted value.
	KindWrongType ErrorKind = "wrong_type"
	// An argument's value satisfies no accepted value under its rule.
	KindWrongValue ErrorKind = "wrong_value"
	// Fewer calls were made than expected (the others were right).
	KindMissedCall ErrorKind = "missed_call"
	// More calls were made than expected (the expected ones were right).
	KindSpuriousCall ErrorKind = "spurious_call"
)

// ErrorKinds lists every kind in precedence order.
var ErrorKinds = []ErrorKind{
	KindShouldNotCall, KindShouldCall, KindHallucinatedTool, KindWrongTool,
	KindUnparseableArgs, KindMissingArg, KindUnexpectedArg, KindWrongType,
	KindWrongValue, KindMissedCall, KindSpuriousCall,
}

// rank is the kind's position in ErrorKinds (lower = takes precedence).
func (k ErrorKind) rank() int {
	for i, x := range ErrorKinds {
		if x == k {
			return i
		}
	}
	return len(ErrorKinds)
}

// Class names in the confusion matrix besides tool names.
const (
	ClassNone    = trace.NoTool // no call
	ClassUnknown = "(unknown)"  // a predicted tool not among the available tools
)

// Pair is one expected call paired with one predicted call.
type Pair struct {
	Expected  int  `json:"expected"`  // index in the chosen gold list
	Predicted int  `json:"predicted"` // index in the prediction's calls
	Exact     bool `json:"exact"`     // same tool and every argument satisfies its rule
}

// ItemResult is the verdict on one item.
type ItemResult struct {
	ID      string    `json:"id"`
	Correct bool      `json:"correct"` // exact_call
	Kind    ErrorKind `json:"kind,omitempty"`
	Message string    `json:"message,omitempty"`
	// ExpectedTool is the chosen gold list's first tool or (none);
	// PredictedTool the first predicted tool, (none) or (unknown) (an item
	// without available tools keeps the predicted name: nothing is unknown).
	ExpectedTool  string `json:"expected_tool"`
	PredictedTool string `json:"predicted_tool"`
	// List is the gold list scored against: 0 = expected_calls, i =
	// acceptable[i-1].
	List    int  `json:"list"`
	Missing bool `json:"missing_prediction,omitempty"`
	// ItemJudge is set on every item when an LLM judge ran (judge_fields.go).
	*ItemJudge

	ToolName  bool    `json:"-"`
	ArgsShape bool    `json:"-"` // meaningful when ExpectedCalls > 0
	ArgsValue bool    `json:"-"` // meaningful when ExpectedCalls > 0
	Sequence  float64 `json:"-"` // meaningful when ExpectedCalls > 0

	ExpectedCalls  int `json:"-"`
	PredictedCalls int `json:"-"` // calls matched (BFCL profile: unparseable ones dropped)
	EmittedCalls   int `json:"-"` // calls the model made
	CatalogCalls   int `json:"-"` // calls made on an item with available tools (hallucination is measurable)
	MatchedCalls   int `json:"-"` // pairs that are exact
	Missed         int `json:"-"` // expected calls left unpaired
	Spurious       int `json:"-"` // predicted calls left unpaired
	Hallucinated   int `json:"-"`
	Unparseable    int `json:"-"`

	// Pairs is filled by Match (not by Score, to keep batch scoring lean).
	Pairs []Pair `json:"-"`

	// Seed holds the seed profile's per-item numbers (nil without one; NaN =
	// null), written at the item's top level under their names (seedNames).
	// A pointer: every item carries the field, few profiles fill it.
	Seed      *SeedScores   `json:"-"`
	Trace     string        `json:"-"`
	seed      int8          // the seed profile that filled Seed
	futureAGI *futureCounts // futureagi: the item's inputs, for its trajectory
}
