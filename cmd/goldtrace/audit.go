package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/spf13/cobra"
)

func newAuditCmd(cli *CLI) *cobra.Command {
	var as string
	var asJSON bool
	var f app.AuditFilter
	cmd := &cobra.Command{
		Use:   "audit --as LEAD",
		Short: "Who did what: every write, every lead read and every refusal (leads only)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			log, err := be.AuditLog(cmd.Context(), who, f)
			if err != nil {
				return fmt.Errorf("audit: %w", err)
			}
			if asJSON {
				if log == nil {
					log = []app.AuditEntry{}
				}
				return render.IndentJSON(cli.Out, log)
			}
			tw := tabwriter.NewWriter(cli.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tACTOR\tROLE\tVIA\tACTION\tOBJECT\tOUTCOME")
			for _, e := range log {
				actor := e.Actor
				if actor == "" {
					actor = "(nobody)"
				}
				via := e.Source
				if e.KeyFingerprint != "" {
					via += " " + e.KeyFingerprint
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.At, actor, e.Role, via, e.Action, e.Object, e.Outcome)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead reading the log")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().StringVar(&f.Actor, "actor", "", "only this user's entries")
	cmd.Flags().StringVar(&f.Action, "action", "", "only this action (e.g. export, labels.read-all)")
	cmd.Flags().IntVar(&f.Limit, "last", 0, "only the last N entries")
	return cmd
}
