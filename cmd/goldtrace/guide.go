package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
	"github.com/goldtrace/goldtrace/guide"
)

// guideDefaultAuthor is recorded as the author of the shipped default guide.
const guideDefaultAuthor = "goldtrace"

func newGuideCmd(cli *CLI) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "guide",
		Short: "The labeling guide: set a new version, show it, list its versions",
	}
	cmd.AddCommand(newGuideSetCmd(cli), newGuideShowCmd(cli), newGuideLogCmd(cli))
	return cmd
}

// ensureGuide is the guide in force, storing the shipped default as the
// first version when the project never set one, with the actor and the
// backend that read it.
func ensureGuide(cli *CLI, cmd *cobra.Command) (*app.App, app.Actor, app.GuideVersion, error) {
	be, who, err := cli.Actor(cmd, "")
	if err != nil {
		return nil, who, app.GuideVersion{}, err
	}
	v, err := be.EnsureGuide(cmd.Context(), who, guide.ID(guide.Default()), guide.Default(), guideDefaultAuthor)
	if err != nil {
		return nil, who, v, fmt.Errorf("load guide: %w", err)
	}
	return be, who, v, nil
}

func newGuideSetCmd(cli *CLI) *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:   "set FILE",
		Short: "Make the markdown in FILE (- for stdin) the guide in force (a lead's job)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			body, err := app.ReadFileOrStdin(args[0], cli.In)
			if err != nil {
				return fmt.Errorf("read guide: %w", err)
			}
			if len(body) == 0 {
				return fmt.Errorf("%s: the guide is empty", args[0])
			}
			be, who, err := cli.Actor(cmd, as)
			if err != nil {
				return err
			}
			v, changed, err := be.SetGuide(cmd.Context(), who, guide.ID(string(body)), string(body))
			if err != nil {
				return fmt.Errorf("set guide: %w", err)
			}
			if !changed {
				fmt.Fprintf(cli.Out, "guide %s is already in force\n", v.ID)
				return nil
			}
			fmt.Fprintf(cli.Out, "guide %s is in force (version %d, by %s)\n", v.ID, v.Seq, v.Author)
			return nil
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead setting the guide")
	return cmd
}

func newGuideShowCmd(cli *CLI) *cobra.Command {
	var id string
	var raw bool
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the guide in force (or --version ID); rendered on a terminal, markdown otherwise",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, v, err := ensureGuide(cli, cmd)
			if err != nil {
				return err
			}
			if id != "" {
				if v, err = be.Guide(cmd.Context(), who, id); errors.Is(err, app.ErrNotFound) {
					return fmt.Errorf("no guide version %s (see `goldtrace guide log`)", id)
				} else if err != nil {
					return err
				}
			}
			f, isFile := cli.Out.(*os.File)
			if raw || !isFile || !IsTerminal(cli.Out) {
				_, err := fmt.Fprint(cli.Out, ensureNewline(v.Body))
				return err
			}
			width, _, err := term.GetSize(int(f.Fd()))
			if err != nil || width <= 0 {
				width = 80
			}
			style := guide.StyleDark
			if os.Getenv("NO_COLOR") != "" {
				style = guide.StylePlain
			}
			out, err := guide.Render(v.Body, min(width, 100), style)
			if err != nil {
				return fmt.Errorf("render guide: %w", err)
			}
			fmt.Fprintf(cli.Out, "%s\n\n(guide %s, by %s, %s)\n", out, v.ID, v.Author, v.CreatedAt)
			return nil
		},
	}
	cmd.Flags().StringVar(&id, "version", "", "a guide version id (g_…)")
	cmd.Flags().BoolVar(&raw, "raw", false, "print the markdown even on a terminal")
	return cmd
}

func ensureNewline(s string) string {
	if len(s) > 0 && s[len(s)-1] != '\n' {
		return s + "\n"
	}
	return s
}

func newGuideLogCmd(cli *CLI) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "log",
		Short: "List guide versions, the one in force first, with how many labels used each",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, _, err := ensureGuide(cli, cmd)
			if err != nil {
				return err
			}
			log, used, err := be.GuideLog(cmd.Context(), who)
			if err != nil {
				return fmt.Errorf("guide log: %w", err)
			}
			return render.GuideLog(cli.Out, log, used, asJSON)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
