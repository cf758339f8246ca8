package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"
)

func newSettingsCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "settings",
		Short: "Show project settings; a lead changes them with settings set",
		Long: `Project settings:
  review_agreed   true: items whose labels agree are not accepted automatically;
                  they wait in the lead's queue (dispute kind "review") until a
                  lead accepts them (goldtrace resolve ITEM --accept) or decides
                  otherwise. Default false: agreed items become gold at once.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := cli.Actor(cmd, "")
			if err != nil {
				return err
			}
			settings, err := be.Settings(cmd.Context(), who)
			if err != nil {
				return fmt.Errorf("settings: %w", err)
			}
			if asJSON {
				return json.NewEncoder(cli.Out).Encode(settings)
			}
			keys := make([]string, 0, len(settings))
			for k := range settings {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v := settings[k]
				if v == "" {
					v = "false (default)"
				}
				fmt.Fprintf(cli.Out, "%s = %s\n", k, v)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(newSettingsSetCmd(cli))
	return cmd
}

func newSettingsSetCmd(cli *CLI) *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:   "set KEY VALUE --as LEAD",
		Short: "Change a project setting (leads only)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key := strings.ReplaceAll(args[0], "-", "_")
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			v, err := be.SetSetting(cmd.Context(), who, key, args[1])
			if err != nil {
				return fmt.Errorf("settings set: %w", err)
			}
			fmt.Fprintf(cli.Out, "%s = %s\n", key, v)
			return nil
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead changing the setting")
	return cmd
}
