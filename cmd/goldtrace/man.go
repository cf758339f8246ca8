package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/goldtrace/goldtrace/internal/fserr"
)

func newManCmd(cli *CLI) *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write a man page for every command into DIR (section 1)",
		Long: `man writes goldtrace.1 and one page per command (goldtrace-export.1,
goldtrace-users-add.1, …) into DIR, generated from the commands' own help: name,
synopsis, description, options, examples and related commands. Install them
where man looks, e.g. /usr/local/share/man/man1, or read one with man -l FILE.`,
		Example: `  goldtrace man /usr/local/share/man/man1
  goldtrace man docs/man && man -l docs/man/goldtrace-score.1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
				return fmt.Errorf("man: %s is a file, not a directory", dir)
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("man: %w", err)
			}
			n := 0
			var walk func(c *cobra.Command) error
			walk = func(c *cobra.Command) error {
				if !c.IsAvailableCommand() && c != cmd.Root() {
					return nil
				}
				path := filepath.Join(dir, manName(c)+".1")
				if err := os.WriteFile(path, manPage(c), 0o644); err != nil {
					return fmt.Errorf("man: %w", fserr.Bare(err))
				}
				n++
				for _, sub := range c.Commands() {
					if err := walk(sub); err != nil {
						return err
					}
				}
				return nil
			}
			if err := walk(cmd.Root()); err != nil {
				return err
			}
			fmt.Fprintf(cli.Out, "wrote %d man pages to %s\n", n, dir)
			return nil
		},
	}
}

// manName is the page name of a command: its path joined with dashes.
func manName(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

// roff escapes text for a roff line: backslashes, dashes, a leading . or ',
// and every non-ASCII character as a \[uXXXX] glyph.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	var esc strings.Builder
	for _, r := range s {
		if r > 127 {
			fmt.Fprintf(&esc, `\[u%04X]`, r)
		} else {
			esc.WriteRune(r)
		}
	}
	s = esc.String()
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			l = `\&` + l
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// manPage is c's help as a man page.
func manPage(c *cobra.Command) []byte {
	var b bytes.Buffer
	name := manName(c)
	fmt.Fprintf(&b, ".TH %s 1 \"\" \"goldtrace %s\" \"goldtrace manual\"\n", strings.ToUpper(name), version)
	fmt.Fprintf(&b, ".SH NAME\n%s \\- %s\n", roff(name), roff(c.Short))
	fmt.Fprintf(&b, ".SH SYNOPSIS\n.nf\n%s\n.fi\n", roff(c.UseLine()))
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	fmt.Fprintf(&b, ".SH DESCRIPTION\n.nf\n%s\n.fi\n", roff(strings.TrimSpace(desc)))
	writeFlags := func(title string, fs *pflag.FlagSet) {
		var flags []*pflag.Flag
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				flags = append(flags, f)
			}
		})
		if len(flags) == 0 {
			return
		}
		fmt.Fprintf(&b, ".SH %s\n", title)
		for _, f := range flags {
			head := "\\fB\\-\\-" + roff(f.Name) + "\\fR"
			if f.Shorthand != "" {
				head = "\\fB\\-" + f.Shorthand + "\\fR, " + head
			}
			if f.Value.Type() != "bool" {
				head += " \\fI" + roff(strings.ToUpper(f.Value.Type())) + "\\fR"
			}
			usage := f.Usage
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
				usage += fmt.Sprintf(" (default %s)", f.DefValue)
			}
			fmt.Fprintf(&b, ".TP\n%s\n%s\n", head, roff(usage))
		}
	}
	writeFlags("OPTIONS", c.NonInheritedFlags())
	writeFlags("GLOBAL OPTIONS", c.InheritedFlags())
	if c.Example != "" {
		fmt.Fprintf(&b, ".SH EXAMPLES\n.nf\n%s\n.fi\n", roff(strings.TrimRight(c.Example, "\n")))
	}
	b.WriteString(".SH EXIT STATUS\n0 success; 1 a gate failed (score) or verify found a mismatch; 2 bad usage or bad input.\n")
	var see []string
	if c.HasParent() {
		see = append(see, manName(c.Parent())+"(1)")
	}
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() {
			see = append(see, manName(sub)+"(1)")
		}
	}
	if len(see) > 0 {
		fmt.Fprintf(&b, ".SH SEE ALSO\n%s\n", roff(strings.Join(see, ", ")))
	}
	return b.Bytes()
}
