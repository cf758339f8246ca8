package main

import (
	"fmt"
	"time"

	"github.com/goldtrace/goldtrace/app"

	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/judge"
)

// judgeFlags are the LLM client's flags, shared by score --judge, judge
// calibrate and predict (app checks them).
type judgeFlags = app.JudgeSettings

// addClientFlags registers the endpoint flags under prefix ("judge-" or "").
func addClientFlags(fl *pflag.FlagSet, f *judgeFlags, prefix string) {
	fl.StringVar(&f.URL, prefix+"url", judge.DefaultURL, "OpenAI-compatible base URL (vLLM, llama.cpp server, Ollama …/v1, Azure …/openai/deployments/D?api-version=V); key from GOLDTRACE_JUDGE_API_KEY or OPENAI_API_KEY")
	fl.IntVar(&f.Concurrency, prefix+"concurrency", 4, "requests in flight at once")
	fl.IntVar(&f.MaxRequests, prefix+"max-requests", 0, "stop after this many requests (a budget; 0 = no limit) and report what was done")
	fl.DurationVar(&f.Timeout, prefix+"timeout", 60*time.Second, "per-request timeout (retried like a 5xx)")
	fl.BoolVar(&f.Offline, prefix+"offline", false, "answer from the cache only (no request); report what is missing")
}

// addJudgeFlags registers the judge's flags; withKind adds --judge.
func addJudgeFlags(fl *pflag.FlagSet, f *judgeFlags, withKind bool) {
	if withKind {
		fl.StringVar(&f.Kind, "judge", "", "also grade with an LLM judge: args, selection or quality (never replaces the deterministic verdict)")
	}
	fl.StringVar(&f.Model, "judge-model", "", "the judge's model, pinned to a snapshot (e.g. gpt-4o-2024-08-06)")
	fl.StringVar(&f.Template, "judge-template", "", "replace the judge's prompt with this text/template file (goldtrace judge prompt KIND shows the default)")
	fl.IntVar(&f.Samples, "judge-samples", 5, "quality judge: yes/no judgments per item")
	fl.BoolVar(&f.All, "judge-all", false, "args judge: judge every item with a call, not only those whose tool is right but args differ")
	fl.Float64Var(&f.Threshold, "judge-threshold", 0.5, "a judge score at or above this counts as correct (rescues, contradictions, calibration)")
	addClientFlags(fl, f, "judge-")
}

// judgeIO is where a judge run started from the CLI warns, shows progress
// (stderr) and finds the project.
func judgeIO(cli *CLI) app.JudgeIO {
	return app.JudgeIO{Backend: cli.ActorCtx, Warn: func(msg string) { fmt.Fprintln(cli.Err, msg) },
		Progress: func(label string) (func(done, total int), func()) {
			p := judge.NewProgress(cli.Err, IsTerminal(cli.Err), label)
			return p.Update, p.Done
		}}
}
