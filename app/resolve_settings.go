package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/review"
)

// goldtrace resolve: a lead adjudicates one item without the screen, by
// picking a reviewer's answer, giving a label, accepting both, sending the
// item back, setting argument rules, or proposing a guide change.

// ResolveSettings are resolve's flags for one item.
type ResolveSettings struct {
	Item string
	// One of: Pick a reviewer's label, Label (a file, "-" stdin), Both
	// ("R1,R2": both reviewers right), Accept (the labels as they are),
	// SendBack (to To, or every reviewer).
	Pick, Label, Both string
	Accept, SendBack  bool
	To                []string
	Reason            string
	// Rules are [TOOL:]ARG=RULE argument rules.
	Rules []string
	// Propose notes a proposed guide change on the item.
	Propose string
	Force   bool
}

// ResolveOutcome is what a resolve did.
type ResolveOutcome struct {
	SentBack bool
	// Gold is the item's gold when it was resolved (nil otherwise).
	Gold     *review.Gold
	Proposed bool
}

// Check checks the settings and builds the resolution they ask for
// (stdin is read for --label -); nothing is written.
func (s ResolveSettings) Check(stdin io.Reader) (Resolution, error) {
	chosen := s.chosen()
	if chosen > 1 {
		return Resolution{}, errors.New("resolve: choose one of --pick, --label, --both, --accept, --send-back")
	}
	if chosen == 0 && len(s.Rules) == 0 && s.Propose == "" {
		return Resolution{}, errors.New("resolve: say what to do: --pick, --label, --both, --accept, --send-back or --rule")
	}
	if len(s.To) > 0 && !s.SendBack {
		return Resolution{}, errors.New("resolve: --to goes with --send-back")
	}
	if strings.TrimSpace(s.Reason) == "" && (chosen > 0 || len(s.Rules) > 0) {
		return Resolution{}, errors.New("resolve: --reason is required (a few words on why)")
	}
	r := Resolution{Item: s.Item, Reason: s.Reason, Pick: s.Pick, Accept: s.Accept, Force: s.Force}
	for _, spec := range s.Rules {
		rule, err := review.ParseArgRuleSpec(spec)
		if err != nil {
			return r, fmt.Errorf("resolve: --rule: %w", err)
		}
		r.Rules = append(r.Rules, rule)
	}
	if s.Both != "" {
		r.Both = strings.Split(s.Both, ",")
		if len(r.Both) != 2 || r.Both[0] == "" || r.Both[1] == "" {
			return r, fmt.Errorf("resolve: --both %q: want two reviewers, R1,R2", s.Both)
		}
	}
	if s.Label != "" {
		l, err := readResolveLabel(stdin, s.Label, s.Item)
		if err != nil {
			return r, fmt.Errorf("resolve: --label %w", err)
		}
		r.Label = &l
	}
	if s.SendBack && len(s.Rules) > 0 {
		return r, errors.New("resolve: --rule does not go with --send-back")
	}
	return r, nil
}

func (s ResolveSettings) chosen() int {
	n := 0
	for _, set := range []bool{s.Pick != "", s.Label != "", s.Both != "", s.Accept, s.SendBack} {
		if set {
			n++
		}
	}
	return n
}

// ResolveItem does what s asks for (r is s.Check's resolution) as actor, a
// lead: sends the item back, or resolves it, then notes a guide proposal.
func (a *App) ResolveItem(ctx context.Context, actor Actor, s ResolveSettings, r Resolution) (ResolveOutcome, error) {
	var out ResolveOutcome
	switch {
	case s.SendBack:
		if err := a.SendBack(ctx, actor, s.Item, s.Reason, s.To, s.Force); err != nil {
			return out, fmt.Errorf("resolve %s: %w", s.Item, err)
		}
		out.SentBack = true
	case s.chosen() > 0 || len(r.Rules) > 0:
		g, err := a.Resolve(ctx, actor, r)
		if err != nil {
			return out, fmt.Errorf("resolve %s: %w", s.Item, err)
		}
		out.Gold = &g
	}
	if s.Propose != "" {
		if err := a.ProposeGuideChange(ctx, actor, s.Item, s.Propose); err != nil {
			return out, fmt.Errorf("resolve %s: guide proposal: %w", s.Item, err)
		}
		out.Proposed = true
	}
	return out, nil
}

// readResolveLabel reads one Label JSON object from path ("-" is stdin) for
// item (review.ParseAdjudicationLabel).
func readResolveLabel(stdin io.Reader, path, item string) (review.Label, error) {
	data, err := ReadFileOrStdin(path, stdin)
	if err != nil {
		return review.Label{}, err
	}
	l, err := review.ParseAdjudicationLabel(data, item)
	if err != nil {
		return l, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// ReadFileOrStdin reads name, or stdin for "-" (how a file reaches a
// command over SSH).
func ReadFileOrStdin(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}
