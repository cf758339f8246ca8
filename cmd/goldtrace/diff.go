package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

// diffResult is what diff reports (--json).
type diffResult struct {
	From string `json:"from"`
	To   string `json:"to"`
	dataset.Diff
}

func newDiffCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "diff NAME@vA NAME@vB | FILE FILE",
		Short: "Show added, removed and changed items between two dataset versions (stored or files)",
		Long: `diff compares two versions of a dataset: stored versions (NAME@vN) or canonical
JSONL files, in any mix. For each changed item it lists what changed: the expected
tool, which arguments, their rules, the acceptable alternatives, the rationale, the
provenance, or the input.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := openDiffSide(cmd.Context(), cli, args[0])
			if err != nil {
				return err
			}
			defer a.close()
			b, err := openDiffSide(cmd.Context(), cli, args[1])
			if err != nil {
				return err
			}
			defer b.close()
			d, err := dataset.DiffSources(a.src, b.src)
			if err != nil {
				return fmt.Errorf("diff: %w", err)
			}
			res := diffResult{From: args[0], To: args[1], Diff: d}
			if asJSON {
				return printJSON(cli, res)
			}
			printDiff(cli.Out, res)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

type diffSide struct {
	src   dataset.Source
	close func()
}

// openDiffSide opens a file, or a stored version when arg is NAME@vN and no
// file of that name exists.
func openDiffSide(ctx context.Context, cli *CLI, arg string) (diffSide, error) {
	ref, isRef, refErr := dataset.ParseRef(arg)
	if cli.opensFile(arg, isRef) {
		f, err := os.Open(arg)
		if err != nil {
			return diffSide{}, fmt.Errorf("diff %s: %w", arg, fserr.Bare(err))
		}
		return diffSide{src: dataset.Source{Name: arg, R: f}, close: func() { f.Close() }}, nil
	}
	if err := cli.refOnly(arg, isRef, refErr); err != nil {
		return diffSide{}, err
	}
	be, who, err := cli.ActorCtx(ctx)
	if err != nil {
		return diffSide{}, err
	}
	_, content, _, err := be.DatasetFiles(ctx, who, ref.Name, ref.Version)
	if err != nil {
		return diffSide{}, err
	}
	return diffSide{src: dataset.Source{Name: ref.String(), R: bytes.NewReader(content)}, close: func() {}}, nil
}

func printDiff(w io.Writer, res diffResult) {
	fmt.Fprintf(w, "%s → %s: %d added, %d removed, %d changed\n", res.From, res.To, len(res.Added), len(res.Removed), len(res.Changed))
	for _, id := range res.Added {
		fmt.Fprintf(w, "+ %s\n", id)
	}
	for _, id := range res.Removed {
		fmt.Fprintf(w, "- %s\n", id)
	}
	for _, c := range res.Changed {
		fmt.Fprintf(w, "~ %s (%s)\n", c.ID, strings.Join(c.Kinds, ", "))
		for _, f := range c.Fields {
			switch {
			case f.From == nil:
				fmt.Fprintf(w, "    %s: added %s\n", f.Path, clipValue(f.To))
			case f.To == nil:
				fmt.Fprintf(w, "    %s: removed %s\n", f.Path, clipValue(f.From))
			default:
				fmt.Fprintf(w, "    %s: %s → %s\n", f.Path, clipValue(f.From), clipValue(f.To))
			}
		}
	}
}

// clipValue shortens a JSON value for one line of text.
func clipValue(b []byte) string {
	s := string(b)
	if r := []rune(s); len(r) > 100 {
		return string(r[:97]) + "..."
	}
	return s
}
