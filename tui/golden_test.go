package tui

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/review"
)

// -update rewrites the goldens. teatest's golden package registers the flag
// when it is linked into this test binary; register it only when it is not.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the testdata/*.golden files")
	}
	return true
}()

// updateGoldens reports -update.
func updateGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// checkGolden compares r's view with testdata/NAME.golden.
func checkGolden(t *testing.T, name string, r *Root) {
	t.Helper()
	assertGolden(t, name, r.View())
}

// assertGolden compares a view, ANSI-stripped and with trailing spaces cut
// (layout padding; keeps goldens readable), with testdata/NAME.golden
// (rewritten with -update).
func assertGolden(t *testing.T, name, view string) {
	t.Helper()
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	got := strings.Join(lines, "\n") + "\n"
	path := filepath.Join("testdata", name+".golden")
	if updateGoldens() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./tui -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (run with -update if intended)\n--- got\n%s--- want\n%s", name, got, want)
	}
}

func TestGoldenViews(t *testing.T) {
	scenes := []struct {
		name  string
		setup func(t *testing.T, f labelFixture)
		steps func(k *keys)
	}{
		{"fresh_item", nil, func(k *keys) {}},
		{"filtering", nil, func(k *keys) { k.typ("ord") }},
		{"args_problem", nil, func(k *keys) {
			k.typ("ship")
			k.press(tea.KeyEnter)
			k.typ("ORD-10000")
			k.press(tea.KeyTab)
		}},
		{"sequence_revealed", nil, func(k *keys) {
			k.typ("faq")
			k.press(tea.KeyEnter)
			k.typ("late orders")
			k.press(tea.KeyCtrlA)
			k.typ("stat")
			k.press(tea.KeyEnter)
			k.typ("ORD-10000")
			k.press(tea.KeyCtrlO)
			k.press(tea.KeyTab)
			k.typ("Check the FAQ, then the order.")
		}},
		{"expanded_context", nil, func(k *keys) { k.press(tea.KeyCtrlE) }},
		{"skip_prompt", nil, func(k *keys) {
			k.press(tea.KeyCtrlN)
			k.typ("context cut off")
		}},
		{"guide", nil, func(k *keys) { k.press(tea.KeyCtrlG) }},
		{"full_help", nil, func(k *keys) { k.press(tea.KeyF1) }},
		{"empty_queue", func(t *testing.T, f labelFixture) {
			if _, err := f.st.SubmitLabel(context.Background(), review.Label{Item: f.items[0], Reviewer: "alice", Decision: review.DecisionNoCall, Rationale: "test"}); err != nil {
				t.Fatal(err)
			}
		}, func(k *keys) {}},
		{"submit_refused", nil, func(k *keys) {
			k.typ("ship")
			k.press(tea.KeyEnter)
			k.press(tea.KeyCtrlS)
		}},
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		for _, sc := range scenes {
			name := sc.name + "_" + itoa(size[0]) + "x" + itoa(size[1])
			t.Run(name, func(t *testing.T) {
				f := newLabelFixture(t, 1, "alice")
				if sc.setup != nil {
					sc.setup(t, f)
				}
				r, _, _ := newTestLabelRoot(t, f, "alice", size[0], size[1])
				sc.steps(&keys{r: r})
				checkGolden(t, name, r)
			})
		}
	}
}
