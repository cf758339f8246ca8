package tui

import (
	"encoding/json"
	"strings"
)

// carryArgs are the arguments of ce's current tool that the tool called
// name also takes, by the same name and of the same type, as JSON, and
// their names: switching tools keeps what was typed where it still fits.
// A current tool the item does not offer (a draft's tool renamed in a
// newer catalogue) has no schema to compare: its arguments that fit the
// new tool's by name are kept.
func (f *labelForm) carryArgs(ce *callEditor, name string) (string, []string) {
	dec := json.NewDecoder(strings.NewReader(ce.value()))
	dec.UseNumber()
	var old map[string]any
	if dec.Decode(&old) != nil || len(old) == 0 {
		return "", nil
	}
	oldTool, offered := f.byName[ce.tool]
	was := parseArgSchema(oldTool.Parameters)
	now := parseArgSchema(f.byName[name].Parameters)
	if (offered && was.kind != argObject) || now.kind != argObject {
		return "", nil
	}
	keep := map[string]any{}
	var names []string
	for _, p := range now.props {
		v, ok := old[p.name]
		if !ok {
			continue
		}
		if before := was.prop(p.name); offered && (before == nil || before.schema.typeName() != p.schema.typeName()) {
			continue
		}
		if _, fit := projectValue(v, p.schema); fit {
			keep[p.name] = v
			names = append(names, p.name)
		}
	}
	if len(keep) == 0 {
		return "", nil
	}
	return jsonLine(keep), names
}
