package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

func newDriftCmd(cli *CLI) *cobra.Command {
	var gold, tools, format string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "drift --gold NAME@vN --tools CURRENT.json",
		Short: "Find gold items gone stale under the current tool catalogue (exit 1 when any is)",
		Long: `drift checks every gold item's expected calls against the tool catalogue in
--tools (OpenAI's {"type":"function","function":{…}} tools, flat {name,
description, parameters} tools, as a JSON array or one per line, or MCP's
tools/list result {"tools":[{name, description, inputSchema}]}) and reports,
per item:

  tool_removed        the expected tool is not in the catalogue
  tool_renamed        … and a tool the item was not offered looks like its new
                      name (description, parameter names and name words alike)
  args_invalid        an expected argument no longer validates (which field, why)
  newly_required      a field that was optional when the item was labeled is
                      required now and the gold has no value for it
  enum_value_removed  the gold uses an enum value the schema dropped

A tool whose description and schema are byte-for-byte what the item was labeled
against is not checked again. Exit status 1 when any item is stale, so CI can
gate on it; put stale items back to reviewers with goldtrace sample --stale.`,
		Example: `  goldtrace drift --gold support@v3 --tools tools-2026-06.json
  goldtrace drift --gold support@v3 --tools mcp-tools-list.json --format markdown >> $GITHUB_STEP_SUMMARY`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if gold == "" || tools == "" {
				return fmt.Errorf("drift needs --gold NAME@vN|FILE and --tools FILE")
			}
			if gold == "-" && tools == "-" {
				return fmt.Errorf("--gold and --tools cannot both read stdin: name the gold as NAME@vN")
			}
			if asJSON {
				format = "json"
			}
			if format != "text" && format != "json" && format != "markdown" {
				return fmt.Errorf("--format %q: want text, json or markdown", format)
			}
			current, err := app.ReadCatalogue(tools, cli.In)
			if err != nil {
				return err
			}
			r, err := app.Drift(cmd.Context(), goldSource(cli), gold, current, tools)
			doneReading(cli)
			if err != nil {
				return err
			}
			if err := render.Drift(cli.Out, r, format); err != nil {
				return err
			}
			if r.Stale > 0 {
				return failed("drift: %d of %d items of %s are stale against %s", r.Stale, r.Items, gold, tools)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&gold, "gold", "", "the gold: a dataset version NAME@vN or a gold file (- for stdin)")
	f.StringVar(&tools, "tools", "", "the current tool catalogue: a file (- for stdin)")
	f.StringVar(&format, "format", "text", "text, json or markdown")
	f.BoolVar(&asJSON, "json", false, "print JSON (same as --format json)")
	return cmd
}
