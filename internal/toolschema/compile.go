package toolschema

import (
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// Bounds on what Compile accepts and Validate does.
const (
	MaxNodes        = 20000   // subschemas in one document
	MaxDepth        = 128     // nesting of subschemas
	MaxPatternBytes = 1 << 16 // all patterns and patternProperties keys together
	MaxSteps        = 1 << 16 // subschema evaluations and errors passed up in one Validate
	MaxErrors       = 100     // errors Validate reports (and each subschema passes up)
)

// Schema is a compiled tool schema, safe for concurrent use.
type Schema struct {
	root *node
}

// draft is the dialect a document is read in.
type draft int

const (
	draft6    draft = 6
	draft7    draft = 7
	draft2019 draft = 2019
	draft2020 draft = 2020
)

// dialects are the $schema values Compile knows; absent means 2020-12.
var dialects = map[string]draft{
	"https://json-schema.org/draft/2020-12/schema": draft2020,
	"https://json-schema.org/draft/2019-09/schema": draft2019,
	"http://json-schema.org/draft-07/schema":       draft7,
	"http://json-schema.org/draft-06/schema":       draft6,
}

// node is one compiled subschema.
type node struct {
	always *bool // a boolean schema

	types     typeSet // 0: any
	enum      []any
	hasEnum   bool
	constant  any
	hasConst  bool
	format    string // asserted formats only
	ref       *node
	refPtr    *string // $ref as written
	refAlone  bool    // draft-07 and before: $ref hides its siblings
	required  []string
	props     map[string]*node
	patProps  []patternNode
	addProps  *node
	propNames *node
	minProps  int
	maxProps  int
	deps      []dependency // dependencies (a list or a schema each)
	depReq    []dependency // dependentRequired
	depSchema []dependency // dependentSchemas

	prefix    []*node // prefixItems, or a draft-07 items array
	rest      *node   // items after the prefix (items, or additionalItems)
	restIsAdd bool    // rest came from additionalItems
	minItems  int
	maxItems  int
	unique    bool
	contains  *node
	minCont   int
	maxCont   int

	minLen, maxLen int
	pattern        *regexp.Regexp
	linked         bool // $ref resolved, patterns compiled

	minimum, maximum, exMin, exMax, multipleOf *big.Rat

	allOf, anyOf, oneOf []*node
	not                 *node
	ifS, thenS, elseS   *node
}

// dependency applies when the object has property prop.
type dependency struct {
	prop  string
	names []string
	n     *node
}

type patternNode struct {
	re *regexp.Regexp
	n  *node
}

// compiler compiles one document.
type compiler struct {
	doc      any
	draft    draft
	byPtr    map[string]*node // compiled subschemas by JSON pointer
	nodes    int
	patBytes int
}

// Compile reads doc (a JSON value decoded with UseNumber) as a JSON Schema.
func Compile(doc any) (*Schema, error) {
	c := &compiler{doc: doc, draft: draft2020, byPtr: map[string]*node{}}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"]; ok {
			str, ok := s.(string)
			if !ok {
				return nil, errors.New("$schema must be a string")
			}
			d, ok := dialects[strings.TrimSuffix(str, "#")]
			if !ok {
				return nil, fmt.Errorf("$schema %q is not supported", str)
			}
			c.draft = d
		}
	}
	root, err := c.compile(doc, "", 0)
	if err != nil {
		return nil, err
	}
	if err := c.link(root); err != nil {
		return nil, err
	}
	if err := checkCycles(root); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// compile compiles the subschema v found at JSON pointer ptr.
func (c *compiler) compile(v any, ptr string, depth int) (*node, error) {
	if n, ok := c.byPtr[ptr]; ok {
		return n, nil
	}
	if depth > MaxDepth {
		return nil, fmt.Errorf("%s: subschemas nested more than %d deep", at(ptr), MaxDepth)
	}
	c.nodes++
	if c.nodes > MaxNodes {
		return nil, fmt.Errorf("more than %d subschemas", MaxNodes)
	}
	n := &node{minProps: -1, maxProps: -1, maxItems: -1, minCont: -1, maxCont: -1, maxLen: -1}
	c.byPtr[ptr] = n
	switch s := v.(type) {
	case bool:
		n.always = &s
		return n, nil
	case map[string]any:
		if err := c.keywords(n, s, ptr, depth); err != nil {
			return nil, fmt.Errorf("%s: %w", at(ptr), err)
		}
		return n, nil
	}
	return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at(ptr))
}

func at(ptr string) string {
	if ptr == "" {
		return "the schema"
	}
	return ptr
}

// keywords compiles the keywords of one schema object.
func (c *compiler) keywords(n *node, s map[string]any, ptr string, depth int) error {
	if err := checkAnnotations(s); err != nil {
		return err
	}
	if id, ok := s["$id"]; ok && ptr != "" {
		return fmt.Errorf("$id %v in a subschema is not supported", id)
	}
	for _, kw := range []string{"$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor"} {
		if _, ok := s[kw]; ok && c.draft >= draft2019 {
			return fmt.Errorf("%s is not supported", kw)
		}
	}
	o := schemaObject{c: c, s: s, ptr: ptr, depth: depth}
	for _, compile := range []func(*node) error{o.anyValue, o.object, o.array, o.text, o.number, o.combinations} {
		if err := compile(n); err != nil {
			return err
		}
	}
	return nil
}

// schemaObject is one schema object being compiled, at JSON pointer ptr.
type schemaObject struct {
	c     *compiler
	s     map[string]any
	ptr   string
	depth int
}

func (o schemaObject) has(kw string) bool { _, ok := o.s[kw]; return ok }

// sub compiles the subschema v of keyword kw (at kw/path… below o).
func (o schemaObject) sub(kw string, v any, path ...string) (*node, error) {
	p := o.ptr + "/" + escape(kw)
	for _, e := range path {
		p += "/" + escape(e)
	}
	return o.c.compile(v, p, o.depth+1)
}

// subMap compiles keyword kw's object of subschemas.
func (o schemaObject) subMap(kw string) (map[string]*node, error) {
	m, ok := o.s[kw].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an object", kw)
	}
	out := make(map[string]*node, len(m))
	for k, v := range m {
		var err error
		if out[k], err = o.sub(kw, v, k); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// subList compiles keyword kw's non-empty array of subschemas.
func (o schemaObject) subList(kw string) ([]*node, error) {
	a, ok := o.s[kw].([]any)
	if !ok || len(a) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty array of schemas", kw)
	}
	out := make([]*node, len(a))
	for i, v := range a {
		var err error
		if out[i], err = o.sub(kw, v, strconv.Itoa(i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// anyValue compiles the keywords for every kind of value: type, enum, const, format, $ref, and the places a $ref may point to.
func (o schemaObject) anyValue(n *node) error {
	var err error

	// Places a $ref may point to are compiled as schemas, as the
	// metaschema reads them.
	for _, kw := range []string{"$defs", "definitions"} {
		if o.has(kw) && (kw == "definitions" || o.c.draft >= draft2019) {
			if _, err := o.subMap(kw); err != nil {
				return err
			}
		}
	}
	if o.has("type") {
		if n.types, err = parseTypes(o.s["type"]); err != nil {
			return err
		}
	}
	if o.has("enum") {
		a, ok := o.s["enum"].([]any)
		if !ok {
			return errors.New("enum must be an array")
		}
		if o.c.draft <= draft7 && (len(a) == 0 || hasDuplicate(a)) {
			return errors.New("enum must list distinct values")
		}
		n.enum, n.hasEnum = a, true
	}
	if o.has("const") {
		n.constant, n.hasConst = o.s["const"], true
	}
	if f, ok := o.s["format"].(string); ok && o.c.draft <= draft7 && assertedFormats[f] != nil {
		n.format = f
	}
	if o.has("$ref") {
		r, ok := o.s["$ref"].(string)
		if !ok {
			return errors.New("$ref must be a string")
		}
		n.refPtr = &r
		n.refAlone = o.c.draft <= draft7
	}
	return nil
}

// object compiles the keywords for objects.
func (o schemaObject) object(n *node) error {
	var err error
	if o.has("properties") {
		if n.props, err = o.subMap("properties"); err != nil {
			return err
		}
	}
	if o.has("patternProperties") {
		m, ok := o.s["patternProperties"].(map[string]any)
		if !ok {
			return errors.New("patternProperties must be an object")
		}
		for _, k := range sortedKeys(m) {
			re, err := o.c.regexp(k)
			if err != nil {
				return fmt.Errorf("patternProperties: %w", err)
			}
			sn, err := o.sub("patternProperties", m[k], k)
			if err != nil {
				return err
			}
			n.patProps = append(n.patProps, patternNode{re, sn})
		}
	}
	if o.has("additionalProperties") {
		if n.addProps, err = o.sub("additionalProperties", o.s["additionalProperties"]); err != nil {
			return err
		}
	}
	if o.has("required") {
		if n.required, err = stringArray(o.s["required"], "required"); err != nil {
			return err
		}
	}
	if n.minProps, err = count(o.s, "minProperties", -1); err != nil {
		return err
	}
	if n.maxProps, err = count(o.s, "maxProperties", -1); err != nil {
		return err
	}
	if o.has("propertyNames") {
		if n.propNames, err = o.sub("propertyNames", o.s["propertyNames"]); err != nil {
			return err
		}
	}
	if o.c.draft >= draft2019 {
		if o.has("dependentRequired") {
			m, ok := o.s["dependentRequired"].(map[string]any)
			if !ok {
				return errors.New("dependentRequired must be an object")
			}
			for _, k := range sortedKeys(m) {
				names, err := stringArray(m[k], "dependentRequired")
				if err != nil {
					return err
				}
				n.depReq = append(n.depReq, dependency{prop: k, names: names})
			}
		}
		if o.has("dependentSchemas") {
			m, err := o.subMap("dependentSchemas")
			if err != nil {
				return err
			}
			for _, k := range sortedNodeKeys(m) {
				n.depSchema = append(n.depSchema, dependency{prop: k, n: m[k]})
			}
		}
	}
	// dependencies, the older spelling of both, is still applied.
	if o.has("dependencies") {
		m, ok := o.s["dependencies"].(map[string]any)
		if !ok {
			return errors.New("dependencies must be an object")
		}
		for _, k := range sortedKeys(m) {
			if a, ok := m[k].([]any); ok {
				names, err := stringArray(a, "dependencies")
				if err != nil {
					return err
				}
				n.deps = append(n.deps, dependency{prop: k, names: names})
				continue
			}
			d, err := o.sub("dependencies", m[k], k)
			if err != nil {
				return err
			}
			n.deps = append(n.deps, dependency{prop: k, n: d})
		}
	}
	return nil
}

// array compiles the keywords for lists.
func (o schemaObject) array(n *node) error {
	var err error
	if err := o.items(n); err != nil {
		return err
	}
	if n.minItems, err = count(o.s, "minItems", 0); err != nil {
		return err
	}
	if n.maxItems, err = count(o.s, "maxItems", -1); err != nil {
		return err
	}
	if o.has("uniqueItems") {
		b, ok := o.s["uniqueItems"].(bool)
		if !ok {
			return errors.New("uniqueItems must be true or false")
		}
		n.unique = b
	}
	if o.has("contains") {
		if n.contains, err = o.sub("contains", o.s["contains"]); err != nil {
			return err
		}
	}
	if o.c.draft >= draft2019 {
		if n.minCont, err = count(o.s, "minContains", -1); err != nil {
			return err
		}
		if n.maxCont, err = count(o.s, "maxContains", -1); err != nil {
			return err
		}
	}
	return nil
}

// text compiles the keywords for text.
func (o schemaObject) text(n *node) error {
	var err error
	if n.minLen, err = count(o.s, "minLength", 0); err != nil {
		return err
	}
	if n.maxLen, err = count(o.s, "maxLength", -1); err != nil {
		return err
	}
	if p, ok := o.s["pattern"]; ok {
		str, ok := p.(string)
		if !ok {
			return errors.New("pattern must be a string")
		}
		if n.pattern, err = o.c.regexp(str); err != nil {
			return err
		}
	}
	return nil
}

// number compiles the keywords for numbers.
func (o schemaObject) number(n *node) error {
	for _, b := range []struct {
		kw string
		to **big.Rat
	}{{"minimum", &n.minimum}, {"maximum", &n.maximum}, {"exclusiveMinimum", &n.exMin}, {"exclusiveMaximum", &n.exMax}, {"multipleOf", &n.multipleOf}} {
		if !o.has(b.kw) {
			continue
		}
		r, ok := rat(o.s[b.kw])
		if !ok {
			return fmt.Errorf("%s must be a number", b.kw)
		}
		*b.to = r
	}
	if n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		return errors.New("multipleOf must be more than 0")
	}
	return nil
}

// combinations compiles not, allOf, anyOf, oneOf and if/then/else.
func (o schemaObject) combinations(n *node) error {
	var err error
	for _, l := range []struct {
		kw string
		to *[]*node
	}{{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf}} {
		if o.has(l.kw) {
			if *l.to, err = o.subList(l.kw); err != nil {
				return err
			}
		}
	}
	for _, one := range []struct {
		kw string
		to **node
	}{{"not", &n.not}, {"if", &n.ifS}, {"then", &n.thenS}, {"else", &n.elseS}} {
		// then and else without if apply to nothing, but must be schemas.
		if o.has(one.kw) && (one.kw == "not" || o.c.draft >= draft7) {
			if *one.to, err = o.sub(one.kw, o.s[one.kw]); err != nil {
				return err
			}
		}
	}
	// Applied to nothing goldtrace checks, but the metaschema reads them as
	// schemas: a broken one makes the document broken.
	for _, kw := range []string{"unevaluatedProperties", "unevaluatedItems", "contentSchema"} {
		if o.has(kw) && o.c.draft >= draft2019 {
			if _, err := o.sub(kw, o.s[kw]); err != nil {
				return err
			}
		}
	}
	return nil
}

// items compiles items, prefixItems and additionalItems as the draft
// reads them.
func (o schemaObject) items(n *node) error {
	var err error
	items, hasItems := o.s["items"]
	if o.c.draft >= draft2020 {
		if _, ok := o.s["prefixItems"]; ok {
			if n.prefix, err = o.subList("prefixItems"); err != nil {
				return err
			}
		}
		if hasItems {
			n.rest, err = o.sub("items", items)
		}
		return err
	}
	// additionalItems must be a schema even where it applies to nothing
	// (items absent or one schema).
	var add *node
	if a, ok := o.s["additionalItems"]; ok {
		if add, err = o.sub("additionalItems", a); err != nil {
			return err
		}
	}
	if !hasItems {
		return nil
	}
	if _, ok := items.([]any); !ok {
		n.rest, err = o.sub("items", items)
		return err
	}
	if n.prefix, err = subListAllowEmpty(items, func(i int, v any) (*node, error) { return o.sub("items", v, strconv.Itoa(i)) }); err != nil {
		return err
	}
	n.rest, n.restIsAdd = add, add != nil
	return nil
}

func subListAllowEmpty(v any, sub func(int, any) (*node, error)) ([]*node, error) {
	a := v.([]any)
	out := make([]*node, len(a))
	for i, e := range a {
		var err error
		if out[i], err = sub(i, e); err != nil {
			return nil, err
		}
	}
	return out, nil
}
