package dbschema

import (
	"strings"
	"testing"
)

func names(ts []Table) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, " ")
}

// TestInOrder: a table comes after the tables it refers to (itself
// aside); a cycle or a reference to a missing table is an error.
func TestInOrder(t *testing.T) {
	got, err := InOrder([]Table{
		{Name: "labels", Parents: []string{"items", "users"}},
		{Name: "datasets", Parents: []string{"datasets"}},
		{Name: "items", Parents: []string{"traces"}},
		{Name: "users"},
		{Name: "traces"},
		{Name: "dataset_items", Parents: []string{"datasets"}},
	})
	if err != nil || names(got) != "datasets dataset_items traces items users labels" {
		t.Fatalf("order %q, %v", names(got), err)
	}
	pos := map[string]int{}
	for i, tb := range got {
		pos[tb.Name] = i
	}
	for _, tb := range got {
		for _, p := range tb.Parents {
			if pos[p] > pos[tb.Name] {
				t.Errorf("%s comes before its parent %s: %q", tb.Name, p, names(got))
			}
		}
	}
	if _, err := InOrder([]Table{{Name: "a", Parents: []string{"b"}}, {Name: "b", Parents: []string{"a"}}}); err == nil || !strings.Contains(err.Error(), "cycle") {
		t.Errorf("a cycle: %v", err)
	}
	if _, err := InOrder([]Table{{Name: "a", Parents: []string{"gone"}}}); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Errorf("a missing parent: %v", err)
	}
}
