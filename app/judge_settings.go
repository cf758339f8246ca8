package app

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/judge"
)

// An LLM client's and judge's settings as a user gives them (score
// --judge, judge calibrate, predict), checked and turned into the runner
// and the judge run the app's actions take.

// JudgeSettings are the client's and the judge's flags.
type JudgeSettings struct {
	Kind, Model, URL, Template string
	Samples, Concurrency       int
	// MaxRequests is a budget of requests (0: no limit).
	MaxRequests int
	Timeout     time.Duration
	// All: the args judge judges every item with a call.
	All, Offline, BestEffort bool
	Threshold                float64
}

// JudgeIO is where a judge run talks to the user and finds the project
// (its answers are cached in the database).
type JudgeIO struct {
	Backend  func(ctx context.Context) (*App, Actor, error)
	Progress func(label string) (update func(done, total int), done func())
	Warn     func(msg string)
}

// CheckClient checks the client's settings, named with their flags'
// prefix ("judge-" or "").
func (s *JudgeSettings) CheckClient(prefix string) error {
	if s.Model == "" {
		return fmt.Errorf("--%smodel is required (a pinned snapshot such as gpt-4o-2024-08-06)", prefix)
	}
	if s.Concurrency < 1 {
		return fmt.Errorf("--%sconcurrency must be at least 1", prefix)
	}
	if s.MaxRequests < 0 {
		return fmt.Errorf("--%smax-requests must not be negative", prefix)
	}
	if s.Timeout <= 0 {
		return fmt.Errorf("--%stimeout must be positive", prefix)
	}
	return nil
}

// Runner builds the client and the cached runner (flags under prefix); an
// unpinned model name, and a cache that cannot keep answers, are warned
// about.
func (s *JudgeSettings) Runner(ctx context.Context, prefix string, io JudgeIO) (*judge.Runner, error) {
	key := apiKey()
	if !s.Offline && key == "" && needsKey(s.URL) {
		return nil, fmt.Errorf("no API key for %s: set OPENAI_API_KEY or GOLDTRACE_JUDGE_API_KEY (or --%soffline with a filled cache)", hostOf(s.URL), prefix)
	}
	c, err := judge.NewClient(s.URL, key, s.Model)
	if err != nil {
		return nil, err
	}
	c.Timeout = s.Timeout
	c.Budget = judge.NewBudget(s.MaxRequests)
	if judge.Unpinned(s.Model) {
		io.Warn(fmt.Sprintf("warning: --%smodel %s has no date or version suffix: pin a snapshot (e.g. gpt-4o-2024-08-06) or the numbers drift with the alias", prefix, s.Model))
	}
	be, who, err := io.Backend(ctx)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	cache, err := be.JudgeCache(ctx, who)
	if err != nil {
		return nil, fmt.Errorf("judge cache: %w", err)
	}
	if !cache.Kept() && !s.Offline {
		io.Warn(fmt.Sprintf("warning: %s is read-only: answers are not cached, a rerun sends the requests again", be.DatabasePath()))
	}
	r := &judge.Runner{Client: c, Cache: cache, Offline: s.Offline, Concurrency: s.Concurrency,
		Endpoint: c.Host(), Model: c.Model()}
	if s.Offline {
		r.Client = nil
	}
	return r, nil
}

// JudgeRun checks the judge's settings and returns the judge, ready to run
// for Score or Calibrate: its runner is made when the run starts.
func (s *JudgeSettings) JudgeRun(io JudgeIO) (*JudgeRun, error) {
	kind, err := judge.ParseKind(s.Kind)
	if err != nil {
		return nil, fmt.Errorf("--judge: %w", err)
	}
	if err := s.CheckClient("judge-"); err != nil {
		return nil, err
	}
	if s.Samples < 1 {
		return nil, errors.New("--judge-samples must be at least 1")
	}
	if s.Threshold < 0 || s.Threshold > 1 {
		return nil, errors.New("--judge-threshold must be between 0 and 1")
	}
	tmpl, err := s.template(kind)
	if err != nil {
		return nil, err
	}
	return &JudgeRun{
		Judge: &judge.Judge{Kind: kind, Template: tmpl, Samples: s.Samples},
		Model: s.Model, Endpoint: hostOf(s.URL), Threshold: s.Threshold, All: s.All,
		BestEffort: s.BestEffort, MaxRequests: s.MaxRequests,
		NewRunner: func(ctx context.Context) (*judge.Runner, error) { return s.Runner(ctx, "judge-", io) },
		Progress:  io.Progress,
		Warn:      io.Warn,
	}, nil
}

// template loads --judge-template or the built-in prompt.
func (s *JudgeSettings) template(kind judge.Kind) (*judge.Template, error) {
	if s.Template == "" {
		return judge.DefaultTemplate(kind)
	}
	data, err := os.ReadFile(s.Template)
	if err != nil {
		return nil, fmt.Errorf("--judge-template: %w", fserr.Bare(err))
	}
	t, err := judge.ParseTemplate(kind, string(data))
	if err != nil {
		return nil, fmt.Errorf("--judge-template %s: %w", s.Template, err)
	}
	return t, nil
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

func hostOf(base string) string {
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		return u.Host
	}
	return base
}

// OptionalJudgeRun is JudgeRun when --judge was given, else nil; then
// --judge-model is refused, naming the judge kinds the command takes.
func (s *JudgeSettings) OptionalJudgeRun(io JudgeIO, kinds string) (*JudgeRun, error) {
	if s.Kind == "" {
		if s.Model != "" {
			return nil, fmt.Errorf("--judge-model given without --judge %s", kinds)
		}
		return nil, nil
	}
	return s.JudgeRun(io)
}
