package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// shellWords splits an example command line as a shell would (quotes,
// no expansion) up to the first pipe, redirection, && or ;.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	quote := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '|' || c == '>' || c == '<' || c == ';' || c == '&':
			if inWord {
				words = append(words, cur.String())
			}
			return words
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// TestEveryCommandHasExamples: every command's help has 2–4 examples, and
// each one names that command (or one of its subcommands), with flags the
// command has and arguments it accepts.
func TestEveryCommandHasExamples(t *testing.T) {
	root := newRootCmd(NewCLI(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Hidden {
			return
		}
		var lines []string
		for _, l := range strings.Split(c.Example, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, strings.TrimSpace(l))
			}
		}
		if len(lines) < 2 || len(lines) > 4 {
			t.Errorf("%s: %d examples, want 2–4", c.CommandPath(), len(lines))
		}
		for _, l := range lines {
			words := shellWords(l)
			if len(words) == 0 || words[0] != "goldtrace" {
				t.Errorf("%s: example %q does not start with goldtrace", c.CommandPath(), l)
				continue
			}
			fresh := newRootCmd(NewCLI(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}))
			cmd, rest, err := fresh.Find(words[1:])
			if err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), l, err)
				continue
			}
			if !strings.HasPrefix(cmd.CommandPath()+" ", c.CommandPath()+" ") && c != root {
				t.Errorf("%s: example %q runs %s", c.CommandPath(), l, cmd.CommandPath())
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), l, err)
				continue
			}
			if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
				t.Errorf("%s: example %q: %v", c.CommandPath(), l, err)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
