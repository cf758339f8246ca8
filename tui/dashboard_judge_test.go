package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/goldtrace/goldtrace/store"
)

func TestDashboardShowsCalibration(t *testing.T) {
	st := dashboardFixture(t, 6)
	_, p := newDashboardRoot(t, st, 80, 24)
	if strings.Contains(ansi.Strip(p.View()), "judge ") {
		t.Fatalf("a judge line without any calibration:\n%s", ansi.Strip(p.View()))
	}
	summary := `{"judged":100,"agreement":0.94,"kappa":0.812,"confusion":{"human_correct_judge_correct":60,"human_correct_judge_incorrect":3,"human_incorrect_judge_correct":3,"human_incorrect_judge_incorrect":34},"not_judged":0,"per_tool":[],"threshold":0.5}`
	if err := st.AddJudgeCalibration(context.Background(), store.JudgeCalibration{Gold: "support@v1", Kind: "args",
		Model: "gpt-4o-2024-08-06", Endpoint: "api.openai.com", PromptSHA256: "p", Summary: []byte(summary)}); err != nil {
		t.Fatal(err)
	}
	r, p := newDashboardRoot(t, st, 80, 24)
	view := ansi.Strip(p.View())
	for _, want := range []string{"judge args gpt-4o-2024-08-06", "94.0% agree with support@v1", "κ 0.81", "n 100"} {
		if !strings.Contains(view, want) {
			t.Errorf("dashboard lacks %q:\n%s", want, view)
		}
	}
	if n := strings.Count(ansi.Strip(r.View()), "\n") + 1; n > 24 {
		t.Errorf("screen is %d lines at 80×24", n)
	}
}
