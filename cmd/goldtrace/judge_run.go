package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/judge"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
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
func (f *judgeFlags) runner(ctx context.Context, app *App, prefix string) (*judge.Runner, error) {
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
		fmt.Fprintf(app.Err, "warning: --%smodel %s has no date or version suffix: pin a snapshot (e.g. gpt-4o-2024-08-06) or the numbers drift with the alias\n", prefix, f.model)
	}
	be, who, err := app.ActorCtx(ctx)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	cache, err := be.JudgeCache(ctx, who)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	if !cache.Kept() && !f.offline {
		fmt.Fprintf(app.Err, "warning: %s is read-only: answers are not cached, a rerun sends the requests again\n", be.DatabasePath())
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
func judgeProgress(app *App, label string) (func(done, total int), func()) {
	p := judge.NewProgress(app.Err, IsTerminal(app.Err), label)
	return p.Update, p.Done
}

// loadGoldContext reads each gold record's conversation and rationale by id.
func loadGoldContext(ctx context.Context, app *App, ref string) (map[string]recordContext, error) {
	if ref == "-" {
		// scoring has read stdin already; the conversations need a second pass
		return nil, errors.New("the judge and predict read the gold twice: give --gold as a file or NAME@vN, not -")
	}
	name, in, closeIn, err := openGold(ctx, app, ref)
	if err != nil {
		return nil, err
	}
	defer closeIn()
	report, done := linesRead(app, name)
	defer done()
	out := map[string]recordContext{}
	err = gold.Read(ctx, in, name, gold.ReadOptions{Fields: gold.FieldMessages | gold.FieldNotes, Progress: report}, func(_ int, r *gold.Record) error {
		out[r.ID] = recordContext{Messages: r.Input.Messages, Rationale: r.Rationale}
		return nil
	})
	return out, err
}

// recordContext is what an LLM judge reads of a gold record besides what
// scoring keeps: the conversation and the reviewers' rationale.
type recordContext struct {
	Messages  []trace.Message
	Rationale string
}

// judgeError words a run's failure for the one-line error.
func judgeError(err error) error {
	if errors.Is(err, judge.ErrFatal) {
		return fmt.Errorf("judge: %s", strings.TrimPrefix(err.Error(), judge.ErrFatal.Error()+": "))
	}
	return err
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

// judgeInputs builds the judge's input for every selected item (nil for the
// others) and counts them.
func judgeInputs(kind judge.Kind, all bool, items []score.ItemResult, cases []score.Case, preds []score.Prediction, gc map[string]recordContext) ([]*judge.Input, int) {
	inputs := make([]*judge.Input, len(cases))
	n := 0
	for i := range cases {
		if i >= len(items) || !selectForJudge(kind, all, &items[i], preds[i]) {
			continue
		}
		c := &cases[i]
		g := gc[c.ID]
		inputs[i] = &judge.Input{ID: c.ID, Messages: g.Messages, Tools: c.Tools, Expected: c.Expected,
			Acceptable: c.Acceptable, Rationale: g.Rationale, Calls: preds[i].Calls}
		n++
	}
	return inputs, n
}

// runJudge runs j over inputs with a progress report under label; an
// interrupted run returns the context's error.
func runJudge(ctx context.Context, app *App, j *judge.Judge, inputs []*judge.Input, label string) ([]judge.Result, judge.Stats, error) {
	update, done := judgeProgress(app, label)
	j.Runner.Progress = update
	res, st, err := j.Run(ctx, inputs)
	done()
	if err != nil && ctx.Err() != nil {
		return nil, st, errInterrupted
	}
	return res, st, err
}

// errInterrupted: ctrl+c during a judge or predict run. What was answered
// is cached (whole rows only); a rerun continues from there.
var errInterrupted = errors.New("interrupted: the answers so far are cached, run again to continue")
