package toolschema

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

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
		out := withSet(slices.Concat(n.allOf, n.anyOf, n.oneOf), n.ref, n.not, n.ifS)
		return withDeps(withBranches(out, n), n)
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
		return withBranches(withSet([]*node{n.ref}, n.contains, n.propNames, n.ifS), n)
	}
	out := withSet(slices.Concat(n.allOf, n.anyOf, n.oneOf, n.prefix), n.ref, n.not, n.ifS, n.addProps, n.propNames, n.rest, n.contains)
	out = withBranches(out, n)
	for _, p := range n.patProps {
		out = append(out, p.n)
	}
	for _, k := range sortedNodeKeys(n.props) {
		out = append(out, n.props[k])
	}
	return withDeps(out, n)
}

// withSet appends those of xs that are set.
func withSet(out []*node, xs ...*node) []*node {
	for _, x := range xs {
		if x != nil {
			out = append(out, x)
		}
	}
	return out
}

// withBranches appends n's then and else, which apply only beside an if.
func withBranches(out []*node, n *node) []*node {
	if n.ifS == nil {
		return out
	}
	return withSet(out, n.thenS, n.elseS)
}

// withDeps appends the schemas of n's dependencies.
func withDeps(out []*node, n *node) []*node {
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
