package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

// resolveFlags are resolve's options (app checks them).
type resolveFlags struct {
	app.ResolveSettings
	as     string
	asJSON bool
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
	fl.StringVar(&f.Pick, "pick", "", "reviewer whose label becomes gold")
	fl.StringVar(&f.Label, "label", "", "file with a merged or edited label (JSON; - for stdin)")
	fl.StringVar(&f.Both, "both", "", "R1,R2: R1's calls expected, R2's acceptable")
	fl.BoolVar(&f.Accept, "accept", false, "accept agreed labels held for review")
	fl.BoolVar(&f.SendBack, "send-back", false, "send the item back to its reviewers")
	fl.StringSliceVar(&f.To, "to", nil, "with --send-back: only these reviewers")
	fl.StringVar(&f.Reason, "reason", "", "why (required; the note reviewers see with --send-back)")
	fl.StringArrayVar(&f.Rules, "rule", nil, "[TOOL:]ARG=RULE argument rule (repeatable)")
	fl.StringVar(&f.Propose, "propose-guide", "", "note a proposed guide change on this item")
	fl.BoolVar(&f.Force, "force", false, "re-adjudicate an agreed or adjudicated item")
	fl.BoolVar(&f.asJSON, "json", false, "print the resulting gold as JSON")
	return cmd
}

func runResolve(cmd *cobra.Command, cli *CLI, item string, f resolveFlags) error {
	f.Item = item
	r, err := f.Check(cli.In)
	if err != nil {
		return err
	}
	be, who, err := cli.Actor(cmd, f.as)
	if err != nil {
		return err
	}
	out, err := be.ResolveItem(cmd.Context(), who, f.ResolveSettings, r)
	switch {
	case out.SentBack:
		fmt.Fprintf(cli.Out, "%s sent back to its reviewers with your note\n", item)
	case out.Gold != nil && f.asJSON:
		if err := render.IndentJSON(cli.Out, out.Gold); err != nil {
			return err
		}
	case out.Gold != nil:
		fmt.Fprintf(cli.Out, "%s is gold (%s by %s): %s\n", item, out.Gold.Status, out.Gold.Adjudicator, render.GoldSummary(*out.Gold))
	}
	if err != nil {
		return err
	}
	if out.Proposed && !f.asJSON {
		fmt.Fprintf(cli.Out, "guide change proposed on %s\n", item)
	}
	return nil
}
