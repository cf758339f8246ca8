// Package manpage writes a cobra command tree's help as man pages
// (section 1): one page per available command, generated from its own
// help (name, synopsis, description, options, examples, related pages).
package manpage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

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

// WriteTree writes a page for root and every available command under it
// into dir (created if need be), named by command path (goldtrace-users-add.1),
// and returns how many it wrote. version goes in each page's footer.
func WriteTree(root *cobra.Command, dir, version string) (int, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return 0, fmt.Errorf("%s is a file, not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	var walk func(c *cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !c.IsAvailableCommand() && c != root {
			return nil
		}
		path := filepath.Join(dir, manName(c)+".1")
		if err := os.WriteFile(path, manPage(c, version), 0o644); err != nil {
			return fserr.Bare(err)
		}
		n++
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	return n, walk(root)
}

// manPage is c's help as a man page.
func manPage(c *cobra.Command, version string) []byte {
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
