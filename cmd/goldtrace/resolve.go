package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/review"
)

// resolveFlags are resolve's options.
type resolveFlags struct {
	as, pick, label, both, reason, propose string
	to, rules                              []string
	accept, sendBack, force, asJSON        bool
}

func newResolveCmd(cli *CLI) *cobra.Command {
	var f resolveFlags
	cmd := &cobra.Command{
		Use:   "resolve ITEM --as LEAD (--pick R | --label FILE | --both R1,R2 | --accept | --send-back [--to R]) --reason TEXT",
		Short: "Adjudicate a disputed item without the TUI",
		Long: `resolve records a lead's decision on a disputed item: the gold answer, who
decided, when, and why (--reason is required).

  --pick R         reviewer R's label becomes gold
  --label FILE     a merged or edited label (one Label JSON object; "-" reads stdin)
  --both R1,R2     R1's calls are expected, R2's are acceptable too
  --accept         accept agreed labels held for review (setting review_agreed)
  --send-back      return the item to its reviewers (or --to R,…) with --reason as
                   the note they see; their labels are removed and they label again
  --rule [TOOL:]ARG=RULE   argument rules on the gold calls (exact, fuzzy, any,
                   optional, any_of:[…], joined with +), e.g. --rule order_id=fuzzy;
                   alone, changes the rules of an item that already has gold
                   (agreed gold then becomes gold adjudicated by you)
  --propose-guide TEXT     also (or only) note a proposed change to the guide

Only disputed items can be resolved; --force re-adjudicates an agreed or
adjudicated item (exported versions stay as they are; the next export has it).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runResolve(cmd, cli, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.as, "as", "", "the lead deciding (required)")
	fl.StringVar(&f.pick, "pick", "", "reviewer whose label becomes gold")
	fl.StringVar(&f.label, "label", "", "file with a merged or edited label (JSON; - for stdin)")
	fl.StringVar(&f.both, "both", "", "R1,R2: R1's calls expected, R2's acceptable")
	fl.BoolVar(&f.accept, "accept", false, "accept agreed labels held for review")
	fl.BoolVar(&f.sendBack, "send-back", false, "send the item back to its reviewers")
	fl.StringSliceVar(&f.to, "to", nil, "with --send-back: only these reviewers")
	fl.StringVar(&f.reason, "reason", "", "why (required; the note reviewers see with --send-back)")
	fl.StringArrayVar(&f.rules, "rule", nil, "[TOOL:]ARG=RULE argument rule (repeatable)")
	fl.StringVar(&f.propose, "propose-guide", "", "note a proposed guide change on this item")
	fl.BoolVar(&f.force, "force", false, "re-adjudicate an agreed or adjudicated item")
	fl.BoolVar(&f.asJSON, "json", false, "print the resulting gold as JSON")
	return cmd
}

func runResolve(cmd *cobra.Command, cli *CLI, item string, f resolveFlags) error {
	ctx := cmd.Context()
	chosen := 0
	for _, set := range []bool{f.pick != "", f.label != "", f.both != "", f.accept, f.sendBack} {
		if set {
			chosen++
		}
	}
	if chosen > 1 {
		return errors.New("resolve: choose one of --pick, --label, --both, --accept, --send-back")
	}
	if chosen == 0 && len(f.rules) == 0 && f.propose == "" {
		return errors.New("resolve: say what to do: --pick, --label, --both, --accept, --send-back or --rule")
	}
	if len(f.to) > 0 && !f.sendBack {
		return errors.New("resolve: --to goes with --send-back")
	}
	if strings.TrimSpace(f.reason) == "" && (chosen > 0 || len(f.rules) > 0) {
		return errors.New("resolve: --reason is required (a few words on why)")
	}
	r := app.Resolution{Item: item, Reason: f.reason, Pick: f.pick, Accept: f.accept, Force: f.force}
	for _, s := range f.rules {
		spec, err := review.ParseArgRuleSpec(s)
		if err != nil {
			return fmt.Errorf("resolve: --rule: %w", err)
		}
		r.Rules = append(r.Rules, spec)
	}
	if f.both != "" {
		r.Both = strings.Split(f.both, ",")
		if len(r.Both) != 2 || r.Both[0] == "" || r.Both[1] == "" {
			return fmt.Errorf("resolve: --both %q: want two reviewers, R1,R2", f.both)
		}
	}
	if f.label != "" {
		l, err := readResolveLabel(cli, f.label, item)
		if err != nil {
			return fmt.Errorf("resolve: --label %w", err)
		}
		r.Label = &l
	}
	if f.sendBack && len(f.rules) > 0 {
		return errors.New("resolve: --rule does not go with --send-back")
	}
	be, who, err := cli.Actor(cmd, f.as)
	if err != nil {
		return err
	}
	switch {
	case f.sendBack:
		if err := be.SendBack(ctx, who, item, f.reason, f.to, f.force); err != nil {
			return fmt.Errorf("resolve %s: %w", item, err)
		}
		fmt.Fprintf(cli.Out, "%s sent back to its reviewers with your note\n", item)
	case chosen > 0 || len(r.Rules) > 0:
		g, err := be.Resolve(ctx, who, r)
		if err != nil {
			return fmt.Errorf("resolve %s: %w", item, err)
		}
		if f.asJSON {
			enc := json.NewEncoder(cli.Out)
			enc.SetIndent("", "  ")
			if err := enc.Encode(g); err != nil {
				return err
			}
		} else {
			fmt.Fprintf(cli.Out, "%s is gold (%s by %s): %s\n", item, g.Status, g.Adjudicator, goldSummary(g))
		}
	}
	if f.propose != "" {
		if err := be.ProposeGuideChange(ctx, who, item, f.propose); err != nil {
			return fmt.Errorf("resolve %s: guide proposal: %w", item, err)
		}
		if !f.asJSON {
			fmt.Fprintf(cli.Out, "guide change proposed on %s\n", item)
		}
	}
	return nil
}

// goldSummary is a one-line view of a gold answer's calls.
func goldSummary(g review.Gold) string {
	if g.Decision == review.DecisionNoCall {
		return "no tool call"
	}
	var parts []string
	for _, c := range g.Calls {
		parts = append(parts, c.Tool+string(c.Args))
	}
	s := strings.Join(parts, ", ")
	if n := len(g.Acceptable); n > 0 {
		s += fmt.Sprintf(" (+%d acceptable)", n)
	}
	return s
}

// readResolveLabel reads one Label JSON object from path ("-" is stdin) for
// item (review.ParseAdjudicationLabel).
func readResolveLabel(cli *CLI, path, item string) (review.Label, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(cli.In)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return review.Label{}, err
	}
	l, err := review.ParseAdjudicationLabel(data, item)
	if err != nil {
		return l, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}
