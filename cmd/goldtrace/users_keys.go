package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
)

func newUsersKeyCmd(a *CLI) *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Add or remove a user's SSH keys (who they are under goldtrace serve)",
	}
	add := &cobra.Command{
		Use:   "add NAME KEY",
		Short: "Give NAME another SSH key: an authorized_keys line, a .pub file, or - to read it from stdin",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := app.KeyArgument(args[1], a.In, a.remote)
			if err != nil {
				return err
			}
			be, who, err := a.Actor(cmd, as)
			if err != nil {
				return err
			}
			if err := be.AddUserKey(cmd.Context(), who, args[0], k); err != nil {
				return fmt.Errorf("add key to %s: %w", args[0], app.KeyError(err))
			}
			fmt.Fprintf(a.Out, "user %s: key %s added\n", args[0], k.Fingerprint)
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME KEY",
		Short: "Take a key from NAME: its fingerprint (users list), its line or its .pub file",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			fp, err := app.KeyArgumentRef(args[1], a.In, a.remote)
			if err != nil {
				return err
			}
			be, who, err := a.Actor(cmd, as)
			if err != nil {
				return err
			}
			if err := be.RemoveUserKey(cmd.Context(), who, args[0], fp); err != nil {
				return fmt.Errorf("remove key from %s: %w", args[0], app.KeyError(err))
			}
			fmt.Fprintf(a.Out, "user %s: key %s removed\n", args[0], fp)
			return nil
		},
	}
	cmd.PersistentFlags().StringVar(&as, "as", "", "the lead changing the keys")
	cmd.AddCommand(add, remove)
	return cmd
}

func newUsersRemoveCmd(a *CLI) *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Take a user out: their SSH keys stop working at once",
		Long: `remove deletes NAME's SSH keys, so goldtrace serve refuses them from now on, and
deletes the user. A user whose name is on assignments, labels or adjudications
stays listed (that work names them) but has no keys.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := a.Actor(cmd, as)
			if err != nil {
				return err
			}
			kept, err := be.RemoveUser(cmd.Context(), who, args[0])
			if err != nil {
				return fmt.Errorf("remove user %s: %w", args[0], app.KeyError(err))
			}
			if kept {
				fmt.Fprintf(a.Out, "user %s: keys removed; kept in the list because their work names them\n", args[0])
			} else {
				fmt.Fprintf(a.Out, "user %s removed\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead removing the user")
	return cmd
}
