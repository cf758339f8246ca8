package tui

import (
	"encoding/json"
	"strings"
)

// carryArgs are the arguments of ce's current tool that the tool called
// name also takes, by the same name and of the same type, as JSON, and
// their names: switching tools keeps what was typed where it still fits.
func (f *labelForm) carryArgs(ce *callEditor, name string) (string, []string) {
	dec := json.NewDecoder(strings.NewReader(ce.value()))
	dec.UseNumber()
	var old map[string]any
	if dec.Decode(&old) != nil || len(old) == 0 {
		return "", nil
	}
	was := parseArgSchema(f.byName[ce.tool].Parameters)
	now := parseArgSchema(f.byName[name].Parameters)
	if was.kind != argObject || now.kind != argObject {
		return "", nil
	}
	keep := map[string]any{}
	var names []string
	for _, p := range now.props {
		v, ok := old[p.name]
		before := was.prop(p.name)
		if !ok || before == nil || before.schema.typeName() != p.schema.typeName() {
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
