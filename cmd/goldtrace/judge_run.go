package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/app"

	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/judge"
)

// judgeFlags are the LLM client's flags, shared by score --judge, judge
// calibrate and predict.
type judgeFlags struct {
	kind        string
	model       string
	url         string
	template    string
	samples     int
	concurrency int
	maxRequests int
	timeout     time.Duration
	all         bool
	offline     bool
	bestEffort  bool
	threshold   float64
}

// addClientFlags registers the endpoint flags under prefix ("judge-" or "").
func addClientFlags(fl *pflag.FlagSet, f *judgeFlags, prefix string) {
	fl.StringVar(&f.url, prefix+"url", judge.DefaultURL, "OpenAI-compatible base URL (vLLM, llama.cpp server, Ollama …/v1, Azure …/openai/deployments/D?api-version=V); key from GOLDTRACE_JUDGE_API_KEY or OPENAI_API_KEY")
	fl.IntVar(&f.concurrency, prefix+"concurrency", 4, "requests in flight at once")
	fl.IntVar(&f.maxRequests, prefix+"max-requests", 0, "stop after this many requests (a budget; 0 = no limit) and report what was done")
	fl.DurationVar(&f.timeout, prefix+"timeout", 60*time.Second, "per-request timeout (retried like a 5xx)")
	fl.BoolVar(&f.offline, prefix+"offline", false, "answer from the cache only (no request); report what is missing")
}

// addJudgeFlags registers the judge's flags; withKind adds --judge.
func addJudgeFlags(fl *pflag.FlagSet, f *judgeFlags, withKind bool) {
	if withKind {
		fl.StringVar(&f.kind, "judge", "", "also grade with an LLM judge: args, selection or quality (never replaces the deterministic verdict)")
	}
	fl.StringVar(&f.model, "judge-model", "", "the judge's model, pinned to a snapshot (e.g. gpt-4o-2024-08-06)")
	fl.StringVar(&f.template, "judge-template", "", "replace the judge's prompt with this text/template file (goldtrace judge prompt KIND shows the default)")
	fl.IntVar(&f.samples, "judge-samples", 5, "quality judge: yes/no judgments per item")
	fl.BoolVar(&f.all, "judge-all", false, "args judge: judge every item with a call, not only those whose tool is right but args differ")
	fl.Float64Var(&f.threshold, "judge-threshold", 0.5, "a judge score at or above this counts as correct (rescues, contradictions, calibration)")
	addClientFlags(fl, f, "judge-")
}

// apiKey is GOLDTRACE_JUDGE_API_KEY when set, else OPENAI_API_KEY.
func apiKey() string {
	if k := os.Getenv("GOLDTRACE_JUDGE_API_KEY"); k != "" {
		return k
	}
	return os.Getenv("OPENAI_API_KEY")
}

// needsKey: hosted APIs refuse requests without a key; self-hosted servers
// usually take none.
func needsKey(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "api.openai.com" || strings.HasSuffix(h, ".azure.com")
}

// checkCommon validates the client flags registered under prefix.
func (f *judgeFlags) checkCommon(prefix string) error {
	if f.model == "" {
		return fmt.Errorf("--%smodel is required (a pinned snapshot such as gpt-4o-2024-08-06)", prefix)
	}
	if f.concurrency < 1 {
		return fmt.Errorf("--%sconcurrency must be at least 1", prefix)
	}
	if f.maxRequests < 0 {
		return fmt.Errorf("--%smax-requests must not be negative", prefix)
	}
	if f.timeout <= 0 {
		return fmt.Errorf("--%stimeout must be positive", prefix)
	}
	return nil
}

// runner builds the client and the cached runner (flags under prefix); an
// unpinned model name gets a warning on stderr.
func (f *judgeFlags) runner(ctx context.Context, cli *CLI, prefix string) (*judge.Runner, error) {
	key := apiKey()
	if !f.offline && key == "" && needsKey(f.url) {
		return nil, fmt.Errorf("no API key for %s: set OPENAI_API_KEY or GOLDTRACE_JUDGE_API_KEY (or --%soffline with a filled cache)", hostOf(f.url), prefix)
	}
	c, err := judge.NewClient(f.url, key, f.model)
	if err != nil {
		return nil, err
	}
	c.Timeout = f.timeout
	c.Budget = judge.NewBudget(f.maxRequests)
	if judge.Unpinned(f.model) {
		fmt.Fprintf(cli.Err, "warning: --%smodel %s has no date or version suffix: pin a snapshot (e.g. gpt-4o-2024-08-06) or the numbers drift with the alias\n", prefix, f.model)
	}
	be, who, err := cli.ActorCtx(ctx)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	cache, err := be.JudgeCache(ctx, who)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	if !cache.Kept() && !f.offline {
		fmt.Fprintf(cli.Err, "warning: %s is read-only: answers are not cached, a rerun sends the requests again\n", be.DatabasePath())
	}
	r := &judge.Runner{
		Client:      c,
		Cache:       cache,
		Offline:     f.offline,
		Concurrency: f.concurrency,
		Endpoint:    c.Host(),
		Model:       c.Model(),
	}
	if f.offline {
		r.Client = nil
	}
	return r, nil
}

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// template loads --judge-template or the built-in prompt.
func (f *judgeFlags) loadTemplate(kind judge.Kind) (*judge.Template, error) {
	if f.template == "" {
		return judge.DefaultTemplate(kind)
	}
	data, err := os.ReadFile(f.template)
	if err != nil {
		return nil, fmt.Errorf("--judge-template: %w", fserr.Bare(err))
	}
	t, err := judge.ParseTemplate(kind, string(data))
	if err != nil {
		return nil, fmt.Errorf("--judge-template %s: %w", f.template, err)
	}
	return t, nil
}

// judgeProgress starts a progress report on stderr.
func judgeProgress(cli *CLI, label string) (func(done, total int), func()) {
	p := judge.NewProgress(cli.Err, IsTerminal(cli.Err), label)
	return p.Update, p.Done
}

// setup validates the judge's flags and builds the judge (without its
// runner): the kind, the client flags, samples, threshold and template.
func (f *judgeFlags) setup() (*judge.Judge, error) {
	kind, err := judge.ParseKind(f.kind)
	if err != nil {
		return nil, fmt.Errorf("--judge: %w", err)
	}
	if err := f.checkCommon("judge-"); err != nil {
		return nil, err
	}
	if f.samples < 1 {
		return nil, errors.New("--judge-samples must be at least 1")
	}
	if f.threshold < 0 || f.threshold > 1 {
		return nil, errors.New("--judge-threshold must be between 0 and 1")
	}
	tmpl, err := f.loadTemplate(kind)
	if err != nil {
		return nil, err
	}
	return &judge.Judge{Kind: kind, Template: tmpl, Samples: f.samples}, nil
}

// judgeRun is the judge of the flags, ready to run for app (score --judge,
// judge calibrate): its runner is made when the run starts; warnings and
// progress go to stderr.
func (f *judgeFlags) judgeRun(cli *CLI) (*app.JudgeRun, error) {
	j, err := f.setup()
	if err != nil {
		return nil, err
	}
	return &app.JudgeRun{
		Judge: j, Model: f.model, Endpoint: hostOf(f.url), Threshold: f.threshold, All: f.all,
		BestEffort: f.bestEffort, MaxRequests: f.maxRequests,
		NewRunner: func(ctx context.Context) (*judge.Runner, error) { return f.runner(ctx, cli, "judge-") },
		Progress:  func(label string) (func(done, total int), func()) { return judgeProgress(cli, label) },
		Warn:      func(msg string) { fmt.Fprintln(cli.Err, msg) },
	}, nil
}
