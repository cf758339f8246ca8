package textwrap

import "testing"

func TestWrap(t *testing.T) {
	for _, tt := range []struct {
		in     string
		width  int
		indent string
		want   string
	}{
		{"a b c", 80, "  ", "a b c"},
		{"aaa bbb ccc", 7, "  ", "aaa bbb\n  ccc"},
		{"aaaaaaaaaa", 4, "", "aaaa\naaaa\naa"},
		{"x aaaaaaaaaa", 6, " ", "x\n aaaaa\n aaaaa"},
		{"héllo wörld", 5, "", "héllo\nwörld"},
	} {
		if got := Wrap(tt.in, tt.width, tt.indent); got != tt.want {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestFitLines(t *testing.T) {
	in := "short\n  a long line of words here\nend"
	want := "short\n  a long line of\n    words here\nend"
	if got := FitLines(in, 16); got != want {
		t.Errorf("FitLines = %q, want %q", got, want)
	}
}
