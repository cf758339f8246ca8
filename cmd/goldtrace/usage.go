package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/internal/suggest"
)

// flagError is the root's flag error function: an unknown flag names the
// flag the user probably meant ("did you mean --format?").
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return err
	}
	var names []string
	add := func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	}
	cmd.Flags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	if near := suggest.Closest(name, names); near != "" {
		return fmt.Errorf("unknown flag --%s for %s: did you mean --%s?", name, cmd.CommandPath(), near)
	}
	return fmt.Errorf("unknown flag --%s for %s (%s --help lists its flags)", name, cmd.CommandPath(), cmd.CommandPath())
}

// pairFlags is an Args check for commands whose repeatable flags take
// KEY=VALUE: "--min exact_call 0.8" (a space for the =) leaves 0.8 as an
// argument, which is said as the slip it is rather than as an unknown
// command. Other arguments are refused as cobra.NoArgs does.
func pairFlags(what string, flags map[string]*[]string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		for name, vals := range flags {
			for _, v := range *vals {
				if strings.Contains(v, "=") {
					continue
				}
				if len(args) == 0 {
					return fmt.Errorf("--%s takes %s, not %q", name, what, v)
				}
				return fmt.Errorf("--%s takes %s: --%s %s=%s, not --%s %s %s", name, what, name, v, args[0], name, v, args[0])
			}
		}
		return cobra.NoArgs(cmd, args)
	}
}
