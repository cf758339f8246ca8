package suggest

import "testing"

func TestClosest(t *testing.T) {
	flags := []string{"format", "json", "out", "gold", "pred", "min", "max", "baseline", "max-drop"}
	for _, tt := range []struct{ word, want string }{
		{"formt", "format"},
		{"fromat", "format"},
		{"jsn", "json"},
		{"gold", ""}, // exact: nothing to suggest
		{"xyz", ""},  // nothing near
		{"base", "baseline"},
		{"ma", "max"}, // one edit away
		{"preds", "pred"},
	} {
		if got := Closest(tt.word, flags); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.word, got, tt.want)
		}
	}
	if got := Closest("alcie", []string{"alice", "bob", "carol"}); got != "alice" {
		t.Errorf("alcie: %q", got)
	}
	if got := Closest("bobb", []string{"alice", "bob", "carol"}); got != "bob" {
		t.Errorf("bobb: %q", got)
	}
	if got := Closest("dave", []string{"alice", "bob", "carol"}); got != "" {
		t.Errorf("dave: %q", got)
	}
}
