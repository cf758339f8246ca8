package main

import (
	"bytes"
	"context"
	"strings"
)

// runCLI runs goldtrace with args against db, stdin as given, as main would:
// it returns stdout, stderr (ending with main's one "goldtrace: …" line when
// the command failed), the exit code and the error.
func runCLI(db, stdin string, args ...string) (stdout, stderr string, code int, err error) {
	var out, errb bytes.Buffer
	cli := NewCLI(strings.NewReader(stdin), &out, &errb)
	root := newRootCmd(cli)
	root.SetArgs(append([]string{"--db", db}, args...))
	err = cli.runErr(root.ExecuteContext(context.Background()))
	cli.Close()
	if err != nil {
		var line string
		line, code = errorReport(cli, err)
		errb.WriteString(line + "\n")
	}
	return out.String(), errb.String(), code, err
}
