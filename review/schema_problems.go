package review

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/goldtrace/goldtrace/internal/toolschema"
)

// maxEnumShown is how many of an enum's values a problem lists: a tool
// may allow thousands.
const maxEnumShown = 30

// schemaProblems turns one way the arguments fail their schema into
// plain-word problems.
func schemaProblems(e toolschema.Error, add func(Problem)) {
	field := fieldPath(e.Path)
	name := field
	if name == "" {
		name = "the arguments"
	}
	say := func(format string, a ...any) {
		add(Problem{Call: -1, Field: field, Message: fmt.Sprintf(format, a...)})
	}
	switch e.Keyword {
	case "required":
		for _, m := range e.Missing {
			add(Problem{Call: -1, Field: joinField(field, m), Message: joinField(field, m) + " is required"})
		}
	case "dependentRequired":
		for _, m := range e.Missing {
			add(Problem{Call: -1, Field: joinField(field, m), Message: fmt.Sprintf("%s is required when %s is given", joinField(field, m), joinField(field, e.Prop))})
		}
	case "type":
		got, _ := e.Got.(string)
		say("%s must be %s, not %s", name, typeWords(e.Want.([]string)), typeWord(got))
	case "enum":
		values := e.Want.([]any)
		var want []string
		for _, w := range values[:min(len(values), maxEnumShown)] {
			want = append(want, display(w))
		}
		if len(values) > maxEnumShown {
			want = append(want, fmt.Sprintf("… (%d values in all)", len(values)))
		}
		say("%s must be one of %s", name, strings.Join(want, ", "))
	case "const":
		say("%s must be %s", name, display(e.Want))
	case "pattern":
		if e.Got == "" {
			say("%s is empty", name)
		} else {
			say("%s %q does not have the expected form (%s)", name, e.Got, e.Want)
		}
	case "format":
		say("%s %q is not a valid %s", name, e.Got, e.Want)
	case "minLength":
		if e.Got == 0 {
			say("%s is empty", name)
		} else {
			say("%s is too short (at least %d characters)", name, e.Want)
		}
	case "maxLength":
		say("%s is too long (at most %d characters)", name, e.Want)
	case "minItems":
		if e.Got == 0 {
			say("%s needs at least %s", name, plural(e.Want.(int), "entry", "entries"))
		} else {
			say("%s has %d, needs at least %s", name, e.Got, plural(e.Want.(int), "entry", "entries"))
		}
	case "maxItems":
		say("%s has %d, allows at most %s", name, e.Got, plural(e.Want.(int), "entry", "entries"))
	case "uniqueItems":
		d := e.Want.([2]int)
		say("%s has the same entry twice ([%d] and [%d])", name, d[0], d[1])
	case "additionalItems":
		say("%s has %s more than the tool's schema allows", name, plural(e.Got.(int), "entry", "entries"))
	case "contains", "minContains":
		say("%s needs at least %s of the form the tool's schema asks for", name, plural(e.Want.(int), "entry", "entries"))
	case "maxContains":
		say("%s has %d entries of a form the tool's schema allows at most %d times", name, e.Got, e.Want)
	case "minProperties":
		say("%s needs at least %s", name, plural(e.Want.(int), "field", "fields"))
	case "maxProperties":
		say("%s has %d fields, allows at most %d", name, e.Got, e.Want)
	case "propertyNames":
		say("%s: '%s' is not a field name the tool's schema allows", name, e.Prop)
	case "minimum":
		say("%s must be at least %s", name, ratWord(e.Want.(*big.Rat)))
	case "maximum":
		say("%s must be at most %s", name, ratWord(e.Want.(*big.Rat)))
	case "exclusiveMinimum":
		say("%s must be more than %s", name, ratWord(e.Want.(*big.Rat)))
	case "exclusiveMaximum":
		say("%s must be less than %s", name, ratWord(e.Want.(*big.Rat)))
	case "multipleOf":
		say("%s must be a multiple of %s", name, ratWord(e.Want.(*big.Rat)))
	case "not":
		say("%s has a form the tool's schema rules out", name)
	case "oneOf":
		say("%s fits more than one of the forms the tool's schema allows (it must fit exactly one)", name)
	case "false":
		say("%s is not allowed here", name)
	case "additionalProperties":
		// Reported by unknownFields with a suggestion.
	default:
		say("%s does not satisfy the tool's schema (%s)", name, e.Keyword)
	}
}

// ratWord writes a schema bound as a plain number.
func ratWord(r *big.Rat) string {
	if r.IsInt() {
		return r.Num().String()
	}
	return r.FloatString(6)
}
