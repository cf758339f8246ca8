package tui

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// argKind is how one part of a tool's arguments is edited in the form.
type argKind int

const (
	argText argKind = iota
	argNumber
	argInteger
	argBool
	argNull
	argEnum
	argObject
	argArray
	argRaw // edited as JSON text; argSchema.why says why
)

// Limits past which a schema part is edited as JSON instead of a form.
const (
	maxFormProps = 40 // properties of one object
	maxFormDepth = 6  // nested objects and arrays
)

// argSchema is the part of a tool's JSON Schema the argument form renders:
// one node per property, array items and nested objects, with what it
// cannot render marked argRaw and the reason.
type argSchema struct {
	kind  argKind
	desc  string
	enum  []json.RawMessage // argEnum: the allowed values as JSON
	props []argProp         // argObject, required first, then schema order
	items *argSchema        // argArray
	why   string            // argRaw: why this part is JSON text
}

// argProp is one property of an object.
type argProp struct {
	name     string
	required bool
	schema   *argSchema
}

// parseArgSchema reads a tool's parameters schema. It never fails: what the
// form cannot render becomes a raw-JSON part that says why.
func parseArgSchema(params json.RawMessage) *argSchema {
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		return &argSchema{kind: argRaw, why: "the tool has no schema"}
	}
	s := parseArgNode(params, 0)
	if s.kind != argObject && s.kind != argRaw {
		return &argSchema{kind: argRaw, why: "the schema does not describe an object"}
	}
	return s
}

func parseArgNode(raw json.RawMessage, depth int) *argSchema {
	var node map[string]json.RawMessage
	if err := json.Unmarshal(raw, &node); err != nil {
		if string(bytes.TrimSpace(raw)) == "true" {
			return &argSchema{kind: argRaw, why: "any value is allowed"}
		}
		return &argSchema{kind: argRaw, why: "the schema is not valid JSON Schema here"}
	}
	s := &argSchema{}
	_ = json.Unmarshal(node["description"], &s.desc)
	raw1 := func(why string) *argSchema { return &argSchema{kind: argRaw, desc: s.desc, why: why} }
	if depth > maxFormDepth {
		return raw1("nested too deep for a form")
	}
	for _, k := range []string{"$ref", "oneOf", "anyOf", "allOf", "not", "if"} {
		if _, ok := node[k]; ok {
			return raw1("the schema uses " + k)
		}
	}
	if e, ok := node["enum"]; ok {
		if err := json.Unmarshal(e, &s.enum); err != nil || len(s.enum) == 0 {
			return raw1("its enum is not a list")
		}
		s.kind = argEnum
		return s
	}
	typ := ""
	if t, ok := node["type"]; ok {
		if err := json.Unmarshal(t, &typ); err != nil {
			var several []string
			if json.Unmarshal(t, &several) != nil {
				return raw1("its type is not a name")
			}
			if len(several) != 1 {
				return raw1("it takes several types (" + strings.Join(several, " or ") + ")")
			}
			typ = several[0]
		}
	} else {
		_, hasProps := node["properties"]
		_, hasItems := node["items"]
		switch {
		case hasProps:
			typ = "object"
		case hasItems:
			typ = "array"
		default:
			return raw1("no type is given")
		}
	}
	switch typ {
	case "string":
		s.kind = argText
	case "number", "float":
		s.kind = argNumber
	case "integer":
		s.kind = argInteger
	case "boolean":
		s.kind = argBool
	case "null":
		s.kind = argNull
	case "object", "dict":
		return parseArgObject(s, node, depth)
	case "array", "tuple":
		s.kind = argArray
		items, ok := node["items"]
		if !ok {
			s.items = &argSchema{kind: argRaw, why: "any value is allowed"}
		} else {
			s.items = parseArgNode(items, depth+1)
		}
	default:
		return raw1(fmt.Sprintf("unknown type %q", typ))
	}
	return s
}

func parseArgObject(s *argSchema, node map[string]json.RawMessage, depth int) *argSchema {
	s.kind = argObject
	names := orderedKeys(node["properties"])
	if len(names) > maxFormProps {
		return &argSchema{kind: argRaw, desc: s.desc, why: fmt.Sprintf("%d fields: too many for a form", len(names))}
	}
	if len(names) == 0 && depth > 0 {
		return &argSchema{kind: argRaw, desc: s.desc, why: "its fields are not declared"}
	}
	var props map[string]json.RawMessage
	_ = json.Unmarshal(node["properties"], &props)
	var required []string
	_ = json.Unmarshal(node["required"], &required)
	isReq := map[string]bool{}
	for _, r := range required {
		isReq[r] = true
	}
	// Required fields first, in the order "required" lists them (an array
	// keeps its order where a stored schema's properties may have been
	// sorted), then the optional ones in the order they are written.
	seen := map[string]bool{}
	for _, n := range required {
		if _, ok := props[n]; ok && !seen[n] {
			seen[n] = true
			s.props = append(s.props, argProp{name: n, required: true, schema: parseArgNode(props[n], depth+1)})
		}
	}
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			s.props = append(s.props, argProp{name: n, required: isReq[n], schema: parseArgNode(props[n], depth+1)})
		}
	}
	return s
}

// orderedKeys lists an object's keys in the order they are written.
func orderedKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := t.(string)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

// typeName is what a part holds, in a reviewer's words.
func (s *argSchema) typeName() string {
	switch s.kind {
	case argText:
		return "text"
	case argNumber:
		return "number"
	case argInteger:
		return "whole number"
	case argBool:
		return "yes/no"
	case argNull:
		return "null"
	case argEnum:
		return "choice"
	case argObject:
		return "object"
	case argArray:
		return "list"
	}
	return "JSON"
}
