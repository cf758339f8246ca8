package toolschema

import (
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Error is one way a value fails its schema: a keyword that does not hold
// at a place in the value. Where subschemas combine (anyOf, allOf, $ref…)
// the errors are those of the subschemas, as a general validator's leaves.
type Error struct {
	// Path leads from the root value to the failing one: property names
	// and array indexes in decimal.
	Path    []string
	Keyword string
	// Want is what the keyword asks: []string of type names (type), []any
	// (enum), the value (const), *big.Rat (minimum, maximum,
	// exclusiveMinimum, exclusiveMaximum, multipleOf), int (minLength,
	// maxLength, minItems, maxItems, minProperties, maxProperties,
	// minContains, maxContains), the pattern's text (pattern), the
	// format's name (format), [2]int of equal indexes (uniqueItems).
	Want any
	// Got is what the value has: a type name (type), the text (pattern,
	// format), a count in characters, entries or matches; else nil.
	Got any
	// Missing lists absent properties (required, dependentRequired) or
	// unexpected ones (additionalProperties).
	Missing []string
	// Prop is the property a dependentRequired or propertyNames error is
	// about.
	Prop string
}

// ErrTooComplex says Validate gave up after MaxSteps evaluations.
var ErrTooComplex = errors.New("the schema takes too long to check this value")

// Validate returns the errors of inst (a JSON value decoded with
// UseNumber), none when it is valid, or ErrTooComplex. A value with more
// than MaxErrors errors has its first MaxErrors reported.
func (s *Schema) Validate(inst any) ([]Error, error) {
	v := &validator{}
	// Paths grow in place (an error copies its own): no allocation per
	// level until 16 deep.
	errs := v.eval(s.root, inst, make([]string, 0, 16))
	if v.steps > MaxSteps {
		return nil, ErrTooComplex
	}
	return errs, nil
}

type validator struct {
	steps int
}

// leaf is an error at path; its copy of the path counts as work.
func (vd *validator) leaf(path []string, kw string) Error {
	vd.steps += len(path)
	return Error{Path: slices.Clone(path), Keyword: kw}
}

// eval checks v against n and returns the failures.
func (vd *validator) eval(n *node, v any, path []string) []Error {
	if vd.steps++; vd.steps > MaxSteps {
		return []Error{vd.leaf(path, "$steps")}
	}
	if n.always != nil {
		if *n.always {
			return nil
		}
		return []Error{vd.leaf(path, "false")}
	}
	if n.refAlone && n.ref != nil {
		// Draft-07 and before: $ref hides its siblings, but for const
		// (as the general validator goldtrace used had it).
		if n.hasConst && !equal(v, n.constant) {
			e := vd.leaf(path, "const")
			e.Want = n.constant
			return []Error{e}
		}
		return vd.eval(n.ref, v, path)
	}
	t := typeOf(v)
	if n.types != 0 && n.types&t == 0 && !(n.types&tInteger != 0 && t == tNumber && isInteger(v)) {
		e := vd.leaf(path, "type")
		e.Want = n.types.names()
		if names := t.names(); len(names) == 1 {
			e.Got = names[0]
		}
		return []Error{e}
	}
	if n.hasConst && !equal(v, n.constant) {
		e := vd.leaf(path, "const")
		e.Want = n.constant
		return []Error{e}
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(w any) bool { return equal(v, w) }) {
		e := vd.leaf(path, "enum")
		e.Want = n.enum
		return []Error{e}
	}
	if n.format != "" {
		if s, ok := v.(string); ok && !assertedFormats[n.format](s) {
			e := vd.leaf(path, "format")
			e.Want, e.Got = n.format, s
			return []Error{e}
		}
	}
	var errs []Error
	if n.ref != nil {
		errs = append(errs, vd.eval(n.ref, v, path)...)
	}
	switch x := v.(type) {
	case map[string]any:
		errs = vd.object(n, x, path, errs)
	case []any:
		errs = vd.array(n, x, path, errs)
	case string:
		errs = vd.text(n, x, path, errs)
	case json.Number, float64:
		errs = vd.number(n, v, path, errs)
	}
	errs = vd.combinations(n, v, path, errs)
	// Passing errors up costs too: a schema whose every branch fails
	// would otherwise copy more of them at every level.
	if len(errs) > MaxErrors {
		errs = errs[:MaxErrors:MaxErrors]
	}
	vd.steps += len(errs)
	return errs
}

func (vd *validator) object(n *node, obj map[string]any, path []string, errs []Error) []Error {
	if n.minProps >= 0 && len(obj) < n.minProps {
		e := vd.leaf(path, "minProperties")
		e.Want, e.Got = n.minProps, len(obj)
		errs = append(errs, e)
	}
	if n.maxProps >= 0 && len(obj) > n.maxProps {
		e := vd.leaf(path, "maxProperties")
		e.Want, e.Got = n.maxProps, len(obj)
		errs = append(errs, e)
	}
	if missing := absent(obj, n.required); missing != nil {
		e := vd.leaf(path, "required")
		e.Missing = missing
		errs = append(errs, e)
	}
	for _, d := range n.deps {
		if _, ok := obj[d.prop]; !ok {
			continue
		}
		if d.n != nil {
			errs = append(errs, vd.eval(d.n, obj, path)...)
		} else if missing := absent(obj, d.names); missing != nil {
			e := vd.leaf(path, "dependentRequired")
			e.Missing, e.Prop = missing, d.prop
			errs = append(errs, e)
		}
	}
	var additional []string
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		val, sub := obj[k], append(path, k)
		evaluated := false
		if p, ok := n.props[k]; ok {
			evaluated = true
			errs = append(errs, vd.eval(p, val, sub)...)
		}
		for _, pp := range n.patProps {
			if pp.re.MatchString(k) {
				evaluated = true
				errs = append(errs, vd.eval(pp.n, val, sub)...)
			}
		}
		if evaluated || n.addProps == nil {
			continue
		}
		if n.addProps.always != nil && !*n.addProps.always {
			additional = append(additional, k)
			continue
		}
		errs = append(errs, vd.eval(n.addProps, val, sub)...)
	}
	if additional != nil {
		e := vd.leaf(path, "additionalProperties")
		e.Missing = additional
		errs = append(errs, e)
	}
	if n.propNames != nil {
		for _, k := range keys {
			if len(vd.eval(n.propNames, k, path)) > 0 {
				e := vd.leaf(path, "propertyNames")
				e.Prop = k
				errs = append(errs, e)
			}
		}
	}
	for _, d := range n.depSchema {
		if _, ok := obj[d.prop]; ok {
			errs = append(errs, vd.eval(d.n, obj, path)...)
		}
	}
	for _, d := range n.depReq {
		if _, ok := obj[d.prop]; ok {
			if missing := absent(obj, d.names); missing != nil {
				e := vd.leaf(path, "dependentRequired")
				e.Missing, e.Prop = missing, d.prop
				errs = append(errs, e)
			}
		}
	}
	return errs
}

func (vd *validator) array(n *node, arr []any, path []string, errs []Error) []Error {
	if len(arr) < n.minItems {
		e := vd.leaf(path, "minItems")
		e.Want, e.Got = n.minItems, len(arr)
		errs = append(errs, e)
	}
	if n.maxItems >= 0 && len(arr) > n.maxItems {
		e := vd.leaf(path, "maxItems")
		e.Want, e.Got = n.maxItems, len(arr)
		errs = append(errs, e)
	}
	if n.unique {
		if i, j := duplicate(arr); j >= 0 {
			e := vd.leaf(path, "uniqueItems")
			e.Want = [2]int{i, j}
			errs = append(errs, e)
		}
	}
	done := min(len(n.prefix), len(arr))
	for i := range done {
		errs = append(errs, vd.eval(n.prefix[i], arr[i], append(path, strconv.Itoa(i)))...)
	}
	if n.rest != nil {
		if n.restIsAdd && n.rest.always != nil && !*n.rest.always {
			if done < len(arr) {
				e := vd.leaf(path, "additionalItems")
				e.Got = len(arr) - done
				errs = append(errs, e)
			}
		} else {
			for i := done; i < len(arr); i++ {
				errs = append(errs, vd.eval(n.rest, arr[i], append(path, strconv.Itoa(i)))...)
			}
		}
	}
	if n.contains != nil {
		var failed []Error
		matched := 0
		for i, el := range arr {
			if e := vd.eval(n.contains, el, append(path, strconv.Itoa(i))); len(e) > 0 {
				failed = append(failed, e...)
			} else {
				matched++
			}
		}
		if n.minCont >= 0 {
			if matched < n.minCont {
				errs = appendOr(errs, failed, vd.leaf(path, "minContains"), n.minCont, matched)
			}
		} else if matched == 0 {
			errs = appendOr(errs, failed, vd.leaf(path, "contains"), 1, 0)
		}
		if n.maxCont >= 0 && matched > n.maxCont {
			e := vd.leaf(path, "maxContains")
			e.Want, e.Got = n.maxCont, matched
			errs = append(errs, e)
		}
	}
	return errs
}

// appendOr appends the failures that explain e, or e itself when there are
// none (a general validator reports a combination by its causes).
func appendOr(errs, causes []Error, e Error, want, got int) []Error {
	if len(causes) > 0 {
		return append(errs, causes...)
	}
	e.Want, e.Got = want, got
	return append(errs, e)
}

func (vd *validator) text(n *node, s string, path []string, errs []Error) []Error {
	if n.minLen > 0 || n.maxLen >= 0 {
		l := utf8.RuneCountInString(s)
		if l < n.minLen {
			e := vd.leaf(path, "minLength")
			e.Want, e.Got = n.minLen, l
			errs = append(errs, e)
		}
		if n.maxLen >= 0 && l > n.maxLen {
			e := vd.leaf(path, "maxLength")
			e.Want, e.Got = n.maxLen, l
			errs = append(errs, e)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		e := vd.leaf(path, "pattern")
		e.Want, e.Got = n.pattern.String(), s
		errs = append(errs, e)
	}
	return errs
}

func (vd *validator) number(n *node, v any, path []string, errs []Error) []Error {
	if n.minimum == nil && n.maximum == nil && n.exMin == nil && n.exMax == nil && n.multipleOf == nil {
		return errs
	}
	r := toRat(v)
	if r == nil {
		return errs
	}
	check := func(kw string, bound *big.Rat, fails func(c int) bool) {
		if bound != nil && fails(r.Cmp(bound)) {
			e := vd.leaf(path, kw)
			e.Want = bound
			errs = append(errs, e)
		}
	}
	check("minimum", n.minimum, func(c int) bool { return c < 0 })
	check("maximum", n.maximum, func(c int) bool { return c > 0 })
	check("exclusiveMinimum", n.exMin, func(c int) bool { return c <= 0 })
	check("exclusiveMaximum", n.exMax, func(c int) bool { return c >= 0 })
	if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf).IsInt() {
		e := vd.leaf(path, "multipleOf")
		e.Want = n.multipleOf
		errs = append(errs, e)
	}
	return errs
}

// combinations applies not, allOf, anyOf, oneOf and if/then/else.
func (vd *validator) combinations(n *node, v any, path []string, errs []Error) []Error {
	if n.not != nil && len(vd.eval(n.not, v, path)) == 0 {
		errs = append(errs, vd.leaf(path, "not"))
	}
	for _, a := range n.allOf {
		errs = append(errs, vd.eval(a, v, path)...)
	}
	if len(n.anyOf) > 0 {
		var failed []Error
		matched := false
		for _, a := range n.anyOf {
			e := vd.eval(a, v, path)
			if len(e) == 0 {
				matched = true
				break
			}
			failed = append(failed, e...)
		}
		if !matched {
			errs = append(errs, failed...)
		}
	}
	if len(n.oneOf) > 0 {
		var failed []Error
		matched := -1
		for i, a := range n.oneOf {
			e := vd.eval(a, v, path)
			if len(e) > 0 {
				if matched < 0 {
					failed = append(failed, e...)
				}
				continue
			}
			if matched >= 0 {
				l := vd.leaf(path, "oneOf")
				l.Want = [2]int{matched, i}
				errs = append(errs, l)
				break
			}
			matched = i
		}
		if matched < 0 {
			errs = append(errs, failed...)
		}
	}
	if n.ifS != nil {
		if len(vd.eval(n.ifS, v, path)) == 0 {
			if n.thenS != nil {
				errs = append(errs, vd.eval(n.thenS, v, path)...)
			}
		} else if n.elseS != nil {
			errs = append(errs, vd.eval(n.elseS, v, path)...)
		}
	}
	return errs
}

func absent(obj map[string]any, names []string) []string {
	var missing []string
	for _, name := range names {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	return missing
}
