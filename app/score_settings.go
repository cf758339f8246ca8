package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/internal/outfile"
	"github.com/goldtrace/goldtrace/score"
	"github.com/goldtrace/goldtrace/trace"
)

// goldtrace score's settings as a user gives them, checked and turned into
// a ScoreRequest, and the report written where the user asked. The CLI and
// the SSH surface pass the flags' text; what they mean is decided here.

// ScoreFormats are the report formats (--format).
var ScoreFormats = score.Formats

// DefaultFailures is how many failing items text and markdown reports list
// unless told otherwise.
const DefaultFailures = score.DefaultFailures

// ScoreSettings are the flags of one goldtrace score run.
type ScoreSettings struct {
	Gold, Pred, PredFormat string
	// Profile names the scoring profile; ParamMode and Weights tune the
	// tutorial profile and are refused with another when Tuned (given).
	Profile, ParamMode, Weights string
	Tuned                       bool
	// Mins and Maxs are METRIC=VALUE thresholds (per_tool.METRIC=VALUE).
	Mins, Maxs []string
	MinSupport int
	// Baseline is a previous JSON report to compare with (MaxDrop).
	Baseline string
	MaxDrop  float64
	// By are meta.NAME keys to break the metrics down by.
	By           []string
	Format       string
	AllowMissing bool
	AllowUnknown bool
	// Judging: an LLM judge grades the run (--judge KIND); JudgeModel is
	// --judge-model, refused without one.
	Judging    bool
	JudgeModel string
}

// Request checks the settings and returns the run they ask for (Judge is
// left for the caller to set when Judging).
func (s ScoreSettings) Request() (ScoreRequest, error) {
	var req ScoreRequest
	if !slices.Contains(score.Formats, s.Format) {
		return req, fmt.Errorf("--format must be one of %s, not %q", strings.Join(score.Formats, ", "), s.Format)
	}
	profile, err := s.profile()
	if err != nil {
		return req, err
	}
	var gates []score.Gate
	for i, specs := range [][]string{s.Mins, s.Maxs} {
		for _, spec := range specs {
			g, err := score.ParseGate(spec, i == 1)
			if err != nil {
				return req, fmt.Errorf("--%s: %w", []string{"min", "max"}[i], err)
			}
			gates = append(gates, g)
		}
	}
	var by []string
	for _, key := range s.By {
		name, ok := strings.CutPrefix(key, "meta.")
		if !ok || name == "" {
			return req, fmt.Errorf("--by %q: want meta.NAME", key)
		}
		by = append(by, name)
	}
	if s.MaxDrop < 0 {
		return req, fmt.Errorf("--max-drop must not be negative")
	}
	var base *score.Report
	if s.Baseline != "" {
		if base, err = readBaseline(s.Baseline); err != nil {
			return req, err
		}
	}
	if s.PredFormat != "" && s.Pred == "" {
		return req, fmt.Errorf("--pred-format needs --pred")
	}
	if s.PredFormat != "" && !slices.Contains(trace.Formats, s.PredFormat) {
		return req, fmt.Errorf("--pred-format must be one of %s, not %q", strings.Join(trace.Formats, ", "), s.PredFormat)
	}
	if !s.Judging {
		for _, g := range gates {
			if g.Metric == score.JudgeScore {
				return req, errors.New("--min judge_score needs --judge args|selection|quality")
			}
		}
		if s.JudgeModel != "" {
			return req, errors.New("--judge-model given without --judge args|selection|quality")
		}
	}
	return ScoreRequest{
		ScoreSource:  ScoreSource{Gold: s.Gold, Pred: s.Pred, PredFormat: s.PredFormat, AllowUnknown: s.AllowUnknown},
		AllowMissing: s.AllowMissing, Options: score.Options{Profile: profile, By: by},
		Gates: gates, MinSupport: s.MinSupport, Baseline: base, MaxDrop: s.MaxDrop,
	}, nil
}

// profile resolves --profile, with --param-mode and --weights for the
// tutorial profile (refused with any other).
func (s ScoreSettings) profile() (score.Profile, error) {
	profile, ok := score.ProfileByName(s.Profile)
	if !ok {
		return profile, fmt.Errorf("--profile must be one of %s, not %q", strings.Join(score.ProfileNames, ", "), s.Profile)
	}
	if profile.Name != score.ProfileTutorial.Name {
		if s.Tuned {
			return profile, fmt.Errorf("--param-mode and --weights apply to --profile tutorial only")
		}
		return profile, nil
	}
	w, err := score.ParseWeights(s.Weights)
	if err != nil {
		return profile, fmt.Errorf("--weights: %w", err)
	}
	profile, err = score.TutorialProfile(s.ParamMode, w)
	if err != nil {
		return profile, fmt.Errorf("--param-mode: %w", err)
	}
	return profile, nil
}

func readBaseline(path string) (*score.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--baseline: %w", err)
	}
	var r score.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("--baseline %s: not a JSON score report: %v", path, err)
	}
	if r.Version != score.ReportVersion {
		return nil, fmt.Errorf("--baseline %s: report version %d, want %d (goldtrace score --format json)", path, r.Version, score.ReportVersion)
	}
	return &r, nil
}

// WriteReport writes r in format to path ("": to stdout), listing at most
// failures failing items; a file is replaced atomically.
func WriteReport(r *score.Report, stdout io.Writer, path, format string, failures int) error {
	opts := score.WriteOptions{Failures: failures}
	err := outfile.Write(path, stdout, func(w io.Writer) error { return r.Write(w, format, opts) })
	if err != nil && path != "" {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return err
}
