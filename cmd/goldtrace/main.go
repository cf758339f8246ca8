// Command goldtrace turns LLM-agent traces into human-labeled, adjudicated,
// versioned gold datasets for tool-selection evaluation.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// main cancels the command's context on SIGINT, SIGTERM and SIGHUP (the
// terminal or SSH connection closed): every command then leaves by its own
// exit path (an import undoes itself, an export removes its temporary
// files, the label screen saves drafts).
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	app := NewApp(os.Stdin, os.Stdout, os.Stderr)
	err := app.runErr(newRootCmd(app).ExecuteContext(ctx))
	app.Close()
	stop()
	if err != nil {
		line, code := errorReport(app, err)
		fmt.Fprintln(os.Stderr, line)
		os.Exit(code)
	}
}
