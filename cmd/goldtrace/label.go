package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/tui"
)

func newLabelCmd(cli *CLI) *cobra.Command {
	var opts tui.LabelOptions
	cmd := &cobra.Command{
		Use:         "label --as NAME",
		Annotations: map[string]string{"screen": "yes"},
		Short:       "Label your queue of items in the terminal UI (blind to other reviewers)",
		Long: `Opens the labeling screen for NAME's queue: for each item, choose the tool the
assistant should call next (or no tool), fill its arguments, say why, and submit
with ctrl+s. Drafts save as you type; ctrl+c saves and quits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, opts.Reviewer)
			if err != nil {
				return err
			}
			session := be.As(who)
			if _, err := session.Open(cmd.Context(), app.ActQueueRead, "label queue"); err != nil {
				return fmt.Errorf("label: %w", err)
			}
			opts.Reviewer = who.Name
			opts.Recovery = app.RecoveryPath(app.RecoveryBase(cli.DBPath), opts.Reviewer)
			err = tui.RunLabel(cmd.Context(), session, opts, cli.programOptions()...)
			var notice *tui.QuitNotice
			if errors.As(err, &notice) {
				for _, line := range notice.Lines {
					fmt.Fprintln(cli.Err, line)
				}
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&opts.Reviewer, "as", "", "the reviewer labeling")
	cmd.Flags().StringVar(&opts.Batch, "batch", "", "only this batch of the queue")
	cmd.Flags().BoolVar(&opts.RationaleOptional, "rationale-optional", false, "allow submitting without a rationale")
	return cmd
}
