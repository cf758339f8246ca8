package toolschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"regexp"
	"slices"
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
	sub := func(kw string, v any, path ...string) (*node, error) {
		p := ptr + "/" + escape(kw)
		for _, e := range path {
			p += "/" + escape(e)
		}
		return c.compile(v, p, depth+1)
	}
	subMap := func(kw string) (map[string]*node, error) {
		m, ok := s[kw].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s must be an object", kw)
		}
		out := make(map[string]*node, len(m))
		for k, v := range m {
			var err error
			if out[k], err = sub(kw, v, k); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	subList := func(kw string) ([]*node, error) {
		a, ok := s[kw].([]any)
		if !ok || len(a) == 0 {
			return nil, fmt.Errorf("%s must be a non-empty array of schemas", kw)
		}
		out := make([]*node, len(a))
		for i, v := range a {
			var err error
			if out[i], err = sub(kw, v, strconv.Itoa(i)); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var err error
	has := func(kw string) bool { _, ok := s[kw]; return ok }

	// Places a $ref may point to are compiled as schemas, as the
	// metaschema reads them.
	for _, kw := range []string{"$defs", "definitions"} {
		if has(kw) && (kw == "definitions" || c.draft >= draft2019) {
			if _, err := subMap(kw); err != nil {
				return err
			}
		}
	}
	if has("type") {
		if n.types, err = parseTypes(s["type"]); err != nil {
			return err
		}
	}
	if has("enum") {
		a, ok := s["enum"].([]any)
		if !ok {
			return errors.New("enum must be an array")
		}
		if c.draft <= draft7 && (len(a) == 0 || hasDuplicate(a)) {
			return errors.New("enum must list distinct values")
		}
		n.enum, n.hasEnum = a, true
	}
	if has("const") {
		n.constant, n.hasConst = s["const"], true
	}
	if f, ok := s["format"].(string); ok && c.draft <= draft7 && assertedFormats[f] != nil {
		n.format = f
	}
	if has("$ref") {
		r, ok := s["$ref"].(string)
		if !ok {
			return errors.New("$ref must be a string")
		}
		n.refPtr = &r
		n.refAlone = c.draft <= draft7
	}

	// objects
	if has("properties") {
		if n.props, err = subMap("properties"); err != nil {
			return err
		}
	}
	if has("patternProperties") {
		m, ok := s["patternProperties"].(map[string]any)
		if !ok {
			return errors.New("patternProperties must be an object")
		}
		for _, k := range sortedKeys(m) {
			re, err := c.regexp(k)
			if err != nil {
				return fmt.Errorf("patternProperties: %w", err)
			}
			sn, err := sub("patternProperties", m[k], k)
			if err != nil {
				return err
			}
			n.patProps = append(n.patProps, patternNode{re, sn})
		}
	}
	if has("additionalProperties") {
		if n.addProps, err = sub("additionalProperties", s["additionalProperties"]); err != nil {
			return err
		}
	}
	if has("required") {
		if n.required, err = stringArray(s["required"], "required"); err != nil {
			return err
		}
	}
	if n.minProps, err = count(s, "minProperties", -1); err != nil {
		return err
	}
	if n.maxProps, err = count(s, "maxProperties", -1); err != nil {
		return err
	}
	if has("propertyNames") {
		if n.propNames, err = sub("propertyNames", s["propertyNames"]); err != nil {
			return err
		}
	}
	if c.draft >= draft2019 {
		if has("dependentRequired") {
			m, ok := s["dependentRequired"].(map[string]any)
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
		if has("dependentSchemas") {
			m, err := subMap("dependentSchemas")
			if err != nil {
				return err
			}
			for _, k := range sortedNodeKeys(m) {
				n.depSchema = append(n.depSchema, dependency{prop: k, n: m[k]})
			}
		}
	}
	// dependencies, the older spelling of both, is still applied.
	if has("dependencies") {
		m, ok := s["dependencies"].(map[string]any)
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
			d, err := sub("dependencies", m[k], k)
			if err != nil {
				return err
			}
			n.deps = append(n.deps, dependency{prop: k, n: d})
		}
	}

	// arrays
	if err := c.arrayKeywords(n, s, sub, subList); err != nil {
		return err
	}
	if n.minItems, err = count(s, "minItems", 0); err != nil {
		return err
	}
	if n.maxItems, err = count(s, "maxItems", -1); err != nil {
		return err
	}
	if has("uniqueItems") {
		b, ok := s["uniqueItems"].(bool)
		if !ok {
			return errors.New("uniqueItems must be true or false")
		}
		n.unique = b
	}
	if has("contains") {
		if n.contains, err = sub("contains", s["contains"]); err != nil {
			return err
		}
	}
	if c.draft >= draft2019 {
		if n.minCont, err = count(s, "minContains", -1); err != nil {
			return err
		}
		if n.maxCont, err = count(s, "maxContains", -1); err != nil {
			return err
		}
	}

	// strings
	if n.minLen, err = count(s, "minLength", 0); err != nil {
		return err
	}
	if n.maxLen, err = count(s, "maxLength", -1); err != nil {
		return err
	}
	if p, ok := s["pattern"]; ok {
		str, ok := p.(string)
		if !ok {
			return errors.New("pattern must be a string")
		}
		if n.pattern, err = c.regexp(str); err != nil {
			return err
		}
	}

	// numbers
	for _, b := range []struct {
		kw string
		to **big.Rat
	}{{"minimum", &n.minimum}, {"maximum", &n.maximum}, {"exclusiveMinimum", &n.exMin}, {"exclusiveMaximum", &n.exMax}, {"multipleOf", &n.multipleOf}} {
		if !has(b.kw) {
			continue
		}
		r, ok := rat(s[b.kw])
		if !ok {
			return fmt.Errorf("%s must be a number", b.kw)
		}
		*b.to = r
	}
	if n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		return errors.New("multipleOf must be more than 0")
	}

	// combinations
	for _, l := range []struct {
		kw string
		to *[]*node
	}{{"allOf", &n.allOf}, {"anyOf", &n.anyOf}, {"oneOf", &n.oneOf}} {
		if has(l.kw) {
			if *l.to, err = subList(l.kw); err != nil {
				return err
			}
		}
	}
	for _, one := range []struct {
		kw string
		to **node
	}{{"not", &n.not}, {"if", &n.ifS}, {"then", &n.thenS}, {"else", &n.elseS}} {
		// then and else without if apply to nothing, but must be schemas.
		if has(one.kw) && (one.kw == "not" || c.draft >= draft7) {
			if *one.to, err = sub(one.kw, s[one.kw]); err != nil {
				return err
			}
		}
	}
	// Applied to nothing goldtrace checks, but the metaschema reads them as
	// schemas: a broken one makes the document broken.
	for _, kw := range []string{"unevaluatedProperties", "unevaluatedItems", "contentSchema"} {
		if has(kw) && c.draft >= draft2019 {
			if _, err := sub(kw, s[kw]); err != nil {
				return err
			}
		}
	}
	return nil
}

// arrayKeywords compiles items, prefixItems and additionalItems as the
// draft reads them.
func (c *compiler) arrayKeywords(n *node, s map[string]any, sub func(string, any, ...string) (*node, error), subList func(string) ([]*node, error)) error {
	var err error
	items, hasItems := s["items"]
	if c.draft >= draft2020 {
		if _, ok := s["prefixItems"]; ok {
			if n.prefix, err = subList("prefixItems"); err != nil {
				return err
			}
		}
		if hasItems {
			n.rest, err = sub("items", items)
		}
		return err
	}
	// additionalItems must be a schema even where it applies to nothing
	// (items absent or one schema).
	var add *node
	if a, ok := s["additionalItems"]; ok {
		if add, err = sub("additionalItems", a); err != nil {
			return err
		}
	}
	if !hasItems {
		return nil
	}
	if _, ok := items.([]any); !ok {
		n.rest, err = sub("items", items)
		return err
	}
	if n.prefix, err = subListAllowEmpty(items, func(i int, v any) (*node, error) { return sub("items", v, strconv.Itoa(i)) }); err != nil {
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

// checkAnnotations applies the metaschema to the keywords that only
// annotate: a description that is not text makes the schema invalid.
func checkAnnotations(s map[string]any) error {
	for _, kw := range []string{"title", "description", "$comment", "format", "contentEncoding", "contentMediaType", "$id"} {
		if v, ok := s[kw]; ok {
			if _, ok := v.(string); !ok {
				return fmt.Errorf("%s must be a string", kw)
			}
		}
	}
	for _, kw := range []string{"readOnly", "writeOnly", "deprecated"} {
		if v, ok := s[kw]; ok {
			if _, ok := v.(bool); !ok {
				return fmt.Errorf("%s must be true or false", kw)
			}
		}
	}
	if v, ok := s["examples"]; ok {
		if _, ok := v.([]any); !ok {
			return errors.New("examples must be an array")
		}
	}
	return nil
}

// typeSet is a set of JSON types, as bits.
type typeSet uint8

const (
	tNull typeSet = 1 << iota
	tBoolean
	tNumber
	tInteger
	tString
	tArray
	tObject
)

// typeNames in the order messages list them.
var typeNames = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

func typeBit(name string) typeSet {
	if i := slices.Index(typeNames, name); i >= 0 {
		return 1 << i
	}
	return 0
}

func (t typeSet) names() []string {
	var out []string
	for i, n := range typeNames {
		if t&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func parseTypes(v any) (typeSet, error) {
	switch v := v.(type) {
	case string:
		if b := typeBit(v); b != 0 {
			return b, nil
		}
		return 0, fmt.Errorf("type %q is not a JSON Schema type", v)
	case []any:
		if len(v) == 0 {
			return 0, errors.New("type must list at least one type")
		}
		var set typeSet
		for _, e := range v {
			s, _ := e.(string)
			b := typeBit(s)
			if b == 0 {
				return 0, fmt.Errorf("type %v is not a JSON Schema type", e)
			}
			if set&b != 0 {
				return 0, fmt.Errorf("type lists %q twice", s)
			}
			set |= b
		}
		return set, nil
	}
	return 0, errors.New("type must be a string or an array of strings")
}

func stringArray(v any, kw string) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an array of strings", kw)
	}
	out := make([]string, len(a))
	seen := make(map[string]bool, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s must be an array of strings", kw)
		}
		if seen[s] {
			return nil, fmt.Errorf("%s lists %q twice", kw, s)
		}
		seen[s] = true
		out[i] = s
	}
	return out, nil
}

// count reads a non-negative whole number keyword; absent is def.
func count(s map[string]any, kw string, def int) (int, error) {
	v, ok := s[kw]
	if !ok {
		return def, nil
	}
	r, ok := rat(v)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, fmt.Errorf("%s must be a whole number, 0 or more", kw)
	}
	if !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 1 << 31, nil // larger than any argument value
	}
	return int(r.Num().Int64()), nil
}

// rat is a JSON number as an exact fraction.
func rat(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, false
	}
	r := numberRat(string(n))
	return r, r != nil
}

// regexp compiles a pattern with Go's regexp (RE2 syntax), wherever the
// metaschema reaches, applied or not, as the metaschema asserts the
// regex format.
func (c *compiler) regexp(src string) (*regexp.Regexp, error) {
	if c.patBytes += len(src); c.patBytes > MaxPatternBytes {
		return nil, fmt.Errorf("patterns longer than %d bytes in all", MaxPatternBytes)
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, fmt.Errorf("pattern %q: %w", src, err)
	}
	return re, nil
}

// localPointer is the JSON pointer a $ref names in the same document:
// "#" or "#/…", percent-decoded.
func localPointer(ref string) (string, error) {
	if ref == "#" {
		return "", nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return "", fmt.Errorf("$ref %q: only references within the schema (#/…) are followed", ref)
	}
	p, err := url.PathUnescape(ref[1:])
	if err != nil {
		return "", fmt.Errorf("$ref %q: %w", ref, err)
	}
	return p, nil
}

// resolve compiles the subschema at JSON pointer ptr.
func (c *compiler) resolve(ptr string) (*node, error) {
	if n, ok := c.byPtr[canonicalPointer(ptr)]; ok {
		return n, nil
	}
	v := c.doc
	depth := 0
	for _, tok := range strings.Split(ptr, "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		depth++
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[tok]
			if !ok {
				return nil, fmt.Errorf("$ref #%s: nothing is there", ptr)
			}
			v = e
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil, fmt.Errorf("$ref #%s: nothing is there", ptr)
			}
			v = x[i]
		default:
			return nil, fmt.Errorf("$ref #%s: nothing is there", ptr)
		}
	}
	return c.compile(v, canonicalPointer(ptr), depth)
}

// canonicalPointer re-escapes a decoded pointer as compile spells it.
func canonicalPointer(ptr string) string {
	toks := strings.Split(ptr, "/")[1:]
	var b strings.Builder
	for _, t := range toks {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		b.WriteString("/" + escape(t))
	}
	return b.String()
}

func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// link resolves the $refs of every subschema that applies to some value,
// from the root: what only sits in a place a $ref could point to ($defs,
// definitions) counts when a $ref does.
func (c *compiler) link(root *node) error {
	stack := []*node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.linked {
			continue
		}
		n.linked = true
		if n.refPtr != nil && n.ref == nil {
			ptr, err := localPointer(*n.refPtr)
			if err != nil {
				return err
			}
			if n.ref, err = c.resolve(ptr); err != nil {
				return err
			}
		}
		stack = append(stack, children(n)...)
	}
	return nil
}

// checkCycles refuses a schema whose $refs can loop back to a subschema
// without descending into the value (such as {"$ref":"#"}): validating
// with it would never end.
func checkCycles(root *node) error {
	const (
		unseen = iota
		active
		done
	)
	state := map[*node]int{}
	var visit func(n *node) error
	// same lists the subschemas applied to the same value.
	same := func(n *node) []*node {
		if n.refAlone && n.refPtr != nil {
			return []*node{n.ref}
		}
		out := append([]*node{}, n.allOf...)
		out = append(out, n.anyOf...)
		out = append(out, n.oneOf...)
		for _, x := range []*node{n.ref, n.not, n.ifS} {
			if x != nil {
				out = append(out, x)
			}
		}
		if n.ifS != nil && n.thenS != nil {
			out = append(out, n.thenS)
		}
		if n.ifS != nil && n.elseS != nil {
			out = append(out, n.elseS)
		}
		for _, d := range slices.Concat(n.deps, n.depSchema) {
			if d.n != nil {
				out = append(out, d.n)
			}
		}
		return out
	}
	var all []*node
	var collect func(n *node)
	collect = func(n *node) {
		if n == nil || state[n] != unseen {
			return
		}
		state[n] = done
		all = append(all, n)
		for _, x := range children(n) {
			collect(x)
		}
	}
	collect(root)
	clear(state)
	visit = func(n *node) error {
		switch state[n] {
		case active:
			return errors.New("a $ref loops back to itself without going into the value")
		case done:
			return nil
		}
		state[n] = active
		for _, x := range same(n) {
			if err := visit(x); err != nil {
				return err
			}
		}
		state[n] = done
		return nil
	}
	for _, n := range all {
		if err := visit(n); err != nil {
			return err
		}
	}
	return nil
}

// children is every subschema n compiles for a value or part of it: where
// $ref hides its siblings (draft-07 and before), the general validator
// goldtrace used still compiled (but did not apply) those of draft-06 and
// draft-07, so their $refs must resolve too.
func children(n *node) []*node {
	if n.refAlone && n.refPtr != nil {
		out := []*node{n.ref}
		for _, x := range []*node{n.contains, n.propNames, n.ifS} {
			if x != nil {
				out = append(out, x)
			}
		}
		if n.ifS != nil && n.thenS != nil {
			out = append(out, n.thenS)
		}
		if n.ifS != nil && n.elseS != nil {
			out = append(out, n.elseS)
		}
		return out
	}
	out := append([]*node{}, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	out = append(out, n.prefix...)
	for _, x := range []*node{n.ref, n.not, n.ifS, n.addProps, n.propNames, n.rest, n.contains} {
		if x != nil {
			out = append(out, x)
		}
	}
	if n.ifS != nil && n.thenS != nil {
		out = append(out, n.thenS)
	}
	if n.ifS != nil && n.elseS != nil {
		out = append(out, n.elseS)
	}
	for _, p := range n.patProps {
		out = append(out, p.n)
	}
	for _, k := range sortedNodeKeys(n.props) {
		out = append(out, n.props[k])
	}
	for _, d := range slices.Concat(n.deps, n.depSchema) {
		if d.n != nil {
			out = append(out, d.n)
		}
	}
	return out
}

func sortedNodeKeys(m map[string]*node) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
