package main

import (
	"fmt"

	"github.com/goldtrace/goldtrace/app"
	"github.com/spf13/cobra"
)

func newVerifyCmd(cli *CLI) *cobra.Command {
	var manifestPath string
	var noManifest, asJSON, deep bool
	cmd := &cobra.Command{
		Use:   "verify FILE | NAME@vN",
		Short: "Check a dataset file: every line a canonical gold record, sorted, and matching its manifest",
		Long: `verify re-reads NAME-vN.jsonl: every line must be a gold record in canonical form
(strict: unknown fields, missing fields, other key orders or spacing are errors), ids
sorted without duplicates, and — against NAME-vN.manifest.json beside it — each
record's hash, the sha256, the count and the per-tool counts must match.
NAME@vN checks the copy kept in the database the same way.
Exit 0 with one OK line; exit 1 naming the first bad line (FILE:LINE: what).

A line whose hash is the one the manifest lists for its id is the line that was
exported and is not decoded again (the whole file's sha256 is checked too);
--deep decodes and re-encodes every line anyway. Progress goes to stderr when it
is a terminal.`,
		Example: `  goldtrace verify datasets/support-v3.jsonl
  goldtrace verify datasets/support-v3.jsonl --deep --json
  goldtrace verify support@v3
  goldtrace verify exported.jsonl --no-manifest`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := app.Verify(cmd.Context(), app.VerifyRequest{Target: args[0], Manifest: manifestPath,
				NoManifest: noManifest, Deep: deep, Remote: cli.remote, Backend: cli.ActorCtx,
				Progress: func(what string, size int64) (func(int64), func()) {
					m := newMeter(cli, what, "MB", size)
					return m.Add, m.Done
				}})
			if err != nil {
				return err
			}
			if asJSON {
				if err := printJSON(cli, res); err != nil {
					return err
				}
			}
			if !res.OK {
				return failed("%s", res.Error)
			}
			if !asJSON {
				fmt.Fprintf(cli.Out, "OK %s: %d records, sha256 %s, %s\n", res.File, res.Records, res.SHA256[:12], verifyAgainst(res))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&manifestPath, "manifest", "", "manifest to check against (default: the one beside FILE)")
	cmd.Flags().BoolVar(&noManifest, "no-manifest", false, "check the lines only")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&deep, "deep", false, "decode every line, also those whose hash the manifest vouches for")
	return cmd
}

// verifyAgainst is what the records were checked against.
func verifyAgainst(res app.VerifyResult) string {
	switch {
	case res.Manifest == "":
		return "no manifest checked"
	case res.Stored:
		return "matches its stored manifest"
	}
	return "matches " + res.Manifest
}
