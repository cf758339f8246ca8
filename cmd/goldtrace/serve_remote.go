package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	gapp "github.com/goldtrace/goldtrace/app"
)

// remoteCheck decides whether a command line an SSH client sent may run and
// with which operands. Over SSH the files a command names would be the
// server's, so the only file a command may read is "-" (the client's
// stdin), output goes to the client's stdout, and dataset versions are
// named NAME@vN. A command not listed here is not available over SSH.
type remoteCheck func(f *pflag.FlagSet, args []string) error

var remoteCommands = map[string]remoteCheck{
	"status": nil, "traces": nil, "batches": nil, "datasets": nil, "datasets get": nil,
	"diff":          refsOnly,
	"verify":        all(refsOnly, noFlags("manifest")),
	"labels export": noFlags("out"),
	"labels import": stdinOnly,
	"import":        all(stdinOnly, noServerURL("s3-endpoint")),
	"sample":        all(stdinFlags("from"), noServerURL("s3-endpoint")),
	"export":        all(noFlags("out"), newVersionOnly), // the files go beside the database: remoteExec
	"resolve":       stdinFlags("label"),
	"guide show":    nil, "guide log": nil,
	"guide set": stdinOnly,
	"settings":  nil, "settings set": nil,
	"users list": nil, "users remove": nil,
	"users add": keyLines,
	"users key add": func(_ *pflag.FlagSet, args []string) error {
		return keyLine(args, 1)
	},
	"users key remove": func(_ *pflag.FlagSet, args []string) error {
		if len(args) > 1 && strings.HasPrefix(args[1], "SHA256:") {
			return nil
		}
		return keyLine(args, 1)
	},
	"score":  all(goldRef, stdinFlags("pred"), noFlags("baseline", "out"), noJudge),
	"audit":  nil,
	"check":  nil, // backup is not: it writes a file on the server
	"assign": nil, // a lead's release: names only, no files
	"whoami": nil,
}

// screenCommands open a screen; over SSH the screen is the session itself.
var screenCommands = map[string]bool{"label": true, "adjudicate": true, "dashboard": true, "demo": true}

// checkRemote refuses, in one line, a command line that may not run over
// SSH: --as and --db, commands that open a screen or act on the server's
// files, and file operands other than "-". Lines that do not parse are left
// to the command tree, which reports them as it does locally.
//
// It returns the command's path ("labels import"), "" when the line names
// no runnable command.
func checkRemote(ctx context.Context, args []string) (string, error) {
	root := newRootCmd(&App{In: nil, Out: io.Discard, Err: io.Discard, remote: true})
	cmd, rest, err := root.Find(args)
	if err != nil || cmd == root {
		return "", nil
	}
	path := strings.TrimPrefix(cmd.CommandPath(), root.Name()+" ")
	if cmd.HasSubCommands() && !cmd.Runnable() {
		return "", nil // a group: prints its help
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return "", nil
	}
	return path, checkRemoteFlags(ctx, path, cmd.Flags())
}

func checkRemoteFlags(ctx context.Context, path string, f *pflag.FlagSet) error {
	who := "the key's user"
	if a, ok := gapp.ActorFrom(ctx); ok {
		who = a.String()
	}
	for _, name := range []string{"as", "db"} {
		if f.Changed(name) {
			return fmt.Errorf("--%s is not accepted over SSH: you are %s", name, who)
		}
	}
	if screenCommands[path] {
		return fmt.Errorf("%s opens a screen: over SSH, connect without a command (ssh -p PORT HOST) to get your screen", path)
	}
	check, ok := remoteCommands[path]
	if !ok {
		return fmt.Errorf("%s is not available over SSH (it works on the server's own files); run it on the server", path)
	}
	if check == nil {
		return nil
	}
	return check(f, f.Args())
}

// all runs every check in turn.
func all(checks ...remoteCheck) remoteCheck {
	return func(f *pflag.FlagSet, args []string) error {
		for _, c := range checks {
			if err := c(f, args); err != nil {
				return err
			}
		}
		return nil
	}
}

// stdinOnly: every positional file operand is "-".
func stdinOnly(_ *pflag.FlagSet, args []string) error {
	for _, a := range args {
		if a != "-" {
			return fmt.Errorf("%s: over SSH a command reads only your stdin: give - and redirect the file (ssh HOST -- … - < %s)", a, a)
		}
	}
	return nil
}

// refsOnly: operands name dataset versions (NAME@vN), not files.
func refsOnly(_ *pflag.FlagSet, args []string) error {
	for _, a := range args {
		if !strings.Contains(a, "@") {
			return fmt.Errorf("%s: over SSH name dataset versions as NAME@vN, not files", a)
		}
	}
	return nil
}

// stdinFlags: these file flags, when given, are "-".
func stdinFlags(names ...string) remoteCheck {
	return func(f *pflag.FlagSet, _ []string) error {
		for _, n := range names {
			if fl := f.Lookup(n); fl != nil && fl.Changed && fl.Value.String() != "-" {
				return fmt.Errorf("--%s %s: over SSH a command reads only your stdin: give --%s - and redirect the file", n, fl.Value, n)
			}
		}
		return nil
	}
}

// noFlags: these flags name files on the server and are refused.
func noFlags(names ...string) remoteCheck {
	return func(f *pflag.FlagSet, _ []string) error {
		for _, n := range names {
			if f.Changed(n) {
				return fmt.Errorf("--%s is not available over SSH (it names a file on the server): output goes to your stdout", n)
			}
		}
		return nil
	}
}

// noServerURL: these flags name a service the server would connect to with
// its own credentials (an object store), and are refused.
func noServerURL(names ...string) remoteCheck {
	return func(f *pflag.FlagSet, _ []string) error {
		for _, n := range names {
			if f.Changed(n) {
				return fmt.Errorf("--%s is not available over SSH (the server would connect to it with its own credentials)", n)
			}
		}
		return nil
	}
}

// newVersionOnly: export NAME@vN re-writes a stored version's files, which
// any dataset reader may ask for; over SSH that would have a reviewer or a
// ci key write files on the server for nothing datasets get does not give.
func newVersionOnly(_ *pflag.FlagSet, args []string) error {
	if len(args) > 0 && strings.Contains(args[0], "@") {
		return fmt.Errorf("export %s writes files on the server: over SSH fetch a version with datasets get %s", args[0], args[0])
	}
	return nil
}

// noJudge: an LLM judge over SSH would spend the server's API key on a
// reviewer's request; judge locally, with your own key.
func noJudge(f *pflag.FlagSet, _ []string) error {
	if f.Changed("judge") {
		return fmt.Errorf("--judge is not available over SSH (it would call a model with the server's API key): run score --judge on your own machine against datasets get")
	}
	return nil
}

// goldRef: score's --gold names a dataset version or stdin.
func goldRef(f *pflag.FlagSet, _ []string) error {
	if fl := f.Lookup("gold"); fl != nil && fl.Changed {
		if v := fl.Value.String(); v != "-" && !strings.Contains(v, "@") {
			return fmt.Errorf("--gold %s: over SSH give a dataset version (NAME@vN) or - for your stdin", v)
		}
	}
	return nil
}

// keyLines: users add --key values are key lines, not the server's files.
func keyLines(f *pflag.FlagSet, _ []string) error {
	fl := f.Lookup("key")
	if fl == nil || !fl.Changed {
		return nil
	}
	vals, err := f.GetStringArray("key")
	if err != nil {
		return nil
	}
	return keyLine(vals, -1)
}

// keyLine checks that args[i] (every arg when i < 0) is an authorized_keys
// line ("TYPE BASE64 [COMMENT]") or - (stdin), not a file name.
func keyLine(args []string, i int) error {
	check := args
	if i >= 0 {
		if i >= len(args) {
			return nil
		}
		check = args[i : i+1]
	}
	for _, a := range check {
		if a != "-" && !strings.Contains(strings.TrimSpace(a), " ") {
			return fmt.Errorf("%s: over SSH give - and the key on stdin (ssh HOST -- users key add NAME - < key.pub), not a file name", a)
		}
	}
	return nil
}

// withFlag adds --name value to a command line, before a "--" that ends the
// flags if there is one.
func withFlag(args []string, name, value string) []string {
	out := make([]string, 0, len(args)+2)
	for i, a := range args {
		if a == "--" {
			out = append(out, "--"+name, value)
			return append(out, args[i:]...)
		}
		out = append(out, a)
	}
	return append(out, "--"+name, value)
}
