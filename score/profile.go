package score

import "strings"

// Profile selects comparison behaviours that differ between scorers. The
// default profile is goldtrace's own semantics (score/REPORT.md, "Matching
// one item"); ProfileBFCL reproduces the Berkeley Function Calling
// Leaderboard's AST checker where it deliberately differs.
type Profile struct {
	Name string
	// normalizeStrings compares strings after BFCL's normalisation (spaces
	// and ,./-_*^ removed, lower-cased, ' read as ").
	normalizeStrings bool
	// dotIsUnderscore treats "." and "_" in tool names as the same
	// character (BFCL renames math.factorial to math_factorial for APIs
	// that forbid dots).
	dotIsUnderscore bool
	// schemaTypes checks predicted argument types against the tool's
	// parameter schema the way BFCL does: an integer is accepted where a
	// float is expected at the top level (not inside arrays), never the
	// reverse; a value of the gold value's own type is also accepted.
	schemaTypes bool
	// unparseableIsNoCall drops predicted calls whose arguments were not
	// JSON before matching (they still count in unparseable_rate), so an
	// unparseable call on a no-call item is a correct abstention. Only BFCL
	// does this; goldtrace never credits an unparseable call as an
	// abstention.
	unparseableIsNoCall bool
	// schemaRequired fails a call that leaves out an argument its tool's
	// schema requires, whatever the gold's rules say (BFCL checks required
	// parameters first; an optional rule cannot loosen that there).
	schemaRequired bool
	// unparseableFailsItem fails an item that expects a call when any
	// predicted call's arguments were not JSON (BFCL's decoder fails the
	// whole output before it checks a call).
	unparseableFailsItem bool
	// schemaDefaults reads an argument passed with its tool schema's
	// default as omitted (not unexpected_arg, and accepted for an optional
	// argument). goldtrace's own rule; BFCL reports unexpected_param or
	// value_error there, so ProfileBFCL leaves it off.
	schemaDefaults bool
	// seed names the seed system whose numbers the profile adds (seed.go);
	// paramMode and weights configure the tutorial's.
	seed      int
	paramMode string
	weights   [3]float64
}

// ProfileDefault is goldtrace's scoring.
var ProfileDefault = Profile{Name: "default", schemaDefaults: true}

// ProfileBFCL mimics BFCL v4's AST checker (see Profile's fields).
var ProfileBFCL = Profile{
	Name:                 "bfcl",
	normalizeStrings:     true,
	dotIsUnderscore:      true,
	schemaTypes:          true,
	unparseableIsNoCall:  true,
	schemaRequired:       true,
	unparseableFailsItem: true,
}

// ProfilePipeline adds the production pipeline's two deterministic graders
// (tool_name_match, tool_args_shape_match) to goldtrace's scoring.
var ProfilePipeline = Profile{Name: "pipeline", schemaDefaults: true, seed: seedPipeline}

// ProfileTutorial adds the tool-usage tutorial's full_tool_accuracy_report
// (exact params, weights .4/.4/.2; TutorialProfile sets others).
var ProfileTutorial = Profile{Name: "tutorial", schemaDefaults: true, seed: seedTutorial,
	paramMode: ParamExact, weights: DefaultTutorialWeights}

// ProfileFutureAGI adds FutureAGI's ToolSelectionAccuracy.
var ProfileFutureAGI = Profile{Name: "futureagi", schemaDefaults: true, seed: seedFutureAGI}

// ProfileNames lists the profiles ProfileByName knows.
var ProfileNames = []string{"default", "bfcl", "pipeline", "tutorial", "futureagi"}

// ProfileByName returns the profile called name (one of ProfileNames).
func ProfileByName(name string) (Profile, bool) {
	switch name {
	case "", ProfileDefault.Name:
		return ProfileDefault, true
	case ProfileBFCL.Name:
		return ProfileBFCL, true
	case ProfilePipeline.Name:
		return ProfilePipeline, true
	case ProfileTutorial.Name:
		return ProfileTutorial, true
	case ProfileFutureAGI.Name:
		return ProfileFutureAGI, true
	}
	return Profile{}, false
}

// ParamMode is the tutorial profile's parameter match mode ("" otherwise).
func (p Profile) ParamMode() string { return p.paramMode }

// Weights are the tutorial profile's composite weights.
func (p Profile) Weights() [3]float64 { return p.weights }

// sameTool reports whether two tool names denote the same tool.
func (p *Profile) sameTool(a, b string) bool {
	if a == b {
		return true
	}
	if !p.dotIsUnderscore || len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == '.' {
			x = '_'
		}
		if y == '.' {
			y = '_'
		}
		if x != y {
			return false
		}
	}
	return true
}

// toolKey is the form of a tool name used as a map key.
func (p *Profile) toolKey(name string) string {
	if p.dotIsUnderscore && strings.IndexByte(name, '.') >= 0 {
		return strings.ReplaceAll(name, ".", "_")
	}
	return name
}
