package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

func newUsersCmd(cli *CLI) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "users",
		Short: "Manage who may label (reviewer), adjudicate (lead) or read datasets (ci)",
	}
	cmd.AddCommand(newUsersAddCmd(cli), newUsersListCmd(cli), newUsersKeyCmd(cli), newUsersRemoveCmd(cli))
	return cmd
}

func newUsersAddCmd(cli *CLI) *cobra.Command {
	var role, as string
	var keyArgs []string
	cmd := &cobra.Command{
		Use:   "add NAME [--role reviewer|lead|ci] [--key KEY]...",
		Short: "Add a user, or change a user's role; --key gives them an SSH key for goldtrace serve (a lead, --as LEAD; the first lead needs no identity)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			keys, err := app.KeyArguments(keyArgs, cli.In, cli.remote)
			if err != nil {
				return err
			}
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			if err := be.AddUser(cmd.Context(), who, args[0], app.Role(role), keys...); err != nil {
				return fmt.Errorf("users add: %w", app.KeyError(err))
			}
			fmt.Fprintf(cli.Out, "user %s is a %s\n", args[0], role)
			for _, k := range keys {
				fmt.Fprintf(cli.Out, "key %s\n", k.Fingerprint)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&role, "role", string(app.RoleReviewer), "reviewer, lead or ci")
	cmd.Flags().StringVar(&as, "as", "", "the lead adding the user (not needed while the project has no lead)")
	cmd.Flags().StringArrayVar(&keyArgs, "key", nil, "an SSH public key: an authorized_keys line, a .pub file or - for stdin (repeatable)")
	return cmd
}

func newUsersListCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List users and their roles",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, "")
			if err != nil {
				return err
			}
			users, err := be.Users(cmd.Context(), who)
			if err != nil {
				return fmt.Errorf("list users: %w", err)
			}
			keys, err := be.UserKeys(cmd.Context(), who)
			if err != nil {
				return fmt.Errorf("list users' keys: %w", err)
			}
			if asJSON {
				return render.UsersJSON(cli.Out, users, keys)
			}
			if len(users) == 0 {
				fmt.Fprintln(cli.Out, "no users yet: goldtrace users add NAME --role reviewer|lead")
				return nil
			}
			tw := tabwriter.NewWriter(cli.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tROLE\tSINCE\tKEYS")
			for _, u := range users {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Name, u.Role, u.CreatedAt[:10], render.KeyColumn(keys[u.Name]))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
