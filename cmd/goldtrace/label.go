package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/tui"
)

func newLabelCmd(app *App) *cobra.Command {
	var opts tui.LabelOptions
	cmd := &cobra.Command{
		Use:   "label --as NAME",
		Short: "Label your queue of items in the terminal UI (blind to other reviewers)",
		Long: `Opens the labeling screen for NAME's queue: for each item, choose the tool the
assistant should call next (or no tool), fill its arguments, say why, and submit
with ctrl+s. Drafts save as you type; ctrl+c saves and quits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Reviewer == "" {
				return errors.New("label needs --as NAME (who is labeling)")
			}
			st, err := app.Store(cmd.Context())
			if err != nil {
				return err
			}
			if err := labelCheckUser(cmd, st, opts.Reviewer); err != nil {
				return err
			}
			opts.Recovery = tui.RecoveryPath(app.DBPath, opts.Reviewer)
			err = tui.RunLabel(cmd.Context(), st, opts, app.programOptions()...)
			var notice *tui.QuitNotice
			if errors.As(err, &notice) {
				for _, line := range notice.Lines {
					fmt.Fprintln(app.Err, line)
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

// labelCheckUser refuses unknown users with how to add one.
func labelCheckUser(cmd *cobra.Command, st *store.Store, name string) error {
	_, err := st.User(cmd.Context(), name)
	if errors.Is(err, store.ErrNotFound) {
		users, uerr := st.Users(cmd.Context())
		if uerr != nil {
			return fmt.Errorf("read users of %s: %w", st.Path(), uerr)
		}
		var names []string
		for _, u := range users {
			names = append(names, u.Name)
		}
		known := "there are no users yet"
		if len(names) > 0 {
			known = "users are " + strings.Join(names, ", ")
		}
		return fmt.Errorf("no user %q (%s): add one with `goldtrace users add %s --role reviewer`", name, known, name)
	}
	if err != nil {
		return fmt.Errorf("read user %q from %s: %w", name, st.Path(), err)
	}
	return nil
}
