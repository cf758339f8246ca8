package guide

import (
	"strings"
	"testing"
)

func TestID(t *testing.T) {
	// sha256("hello") = 2cf24dba5fb0a30e…
	if got := ID("hello"); got != "g_2cf24dba5fb0" {
		t.Errorf("ID = %s", got)
	}
}

func TestHeadingsSkipFences(t *testing.T) {
	body := "# Guide\n\n## `get_order_status`\ntext\n```\n## not a heading\n```\n### refund ###\n"
	got := strings.Join(Headings(body), ",")
	if got != "Guide,get_order_status,refund" {
		t.Errorf("Headings = %q", got)
	}
}

func TestRenderFindsToolSection(t *testing.T) {
	body := Default() + "\n## get_order_status\n\nUse it when the user names one order.\n"
	for _, style := range []string{StyleDark, StylePlain} {
		out, err := Render(body, 60, style)
		if err != nil {
			t.Fatal(err)
		}
		line := SectionLine(out, "get_order_status")
		if line < 0 {
			t.Fatalf("%s: section not found in\n%s", style, out)
		}
		if !strings.Contains(strings.Split(out, "\n")[line+2], "Use it when") {
			t.Errorf("%s: line %d is not the section start", style, line)
		}
		for _, l := range strings.Split(out, "\n") {
			if w := len([]rune(stripped(l))); w > 60 {
				t.Errorf("%s: line wider than 60 (%d): %q", style, w, l)
			}
		}
	}
	if out, _ := Render(body, 60, StylePlain); strings.Contains(out, "\x1b[38") {
		t.Error("plain style emits colour")
	}
	if SectionLine("# x", "nope") != -1 {
		t.Error("missing section should be -1")
	}
}

func TestDefaultCoversTheBasics(t *testing.T) {
	hs := strings.Join(Headings(Default()), "|")
	for _, want := range []string{"Choosing the tool", "Arguments", "No tool", "Sequences", "Rationale", "When to skip"} {
		if !strings.Contains(hs, want) {
			t.Errorf("default guide lacks a %q section", want)
		}
	}
}
