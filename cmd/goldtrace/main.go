// Command goldtrace turns LLM-agent traces into human-labeled, adjudicated,
// versioned gold datasets for tool-selection evaluation.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
)

// main cancels the command's context on SIGINT, SIGTERM and SIGHUP (the
// terminal or SSH connection closed): every command then leaves by its own
// exit path (an import undoes itself, an export removes its temporary
// files, the label screen saves drafts).
func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	stopProfile := startCPUProfile()
	cli := NewCLI(os.Stdin, os.Stdout, os.Stderr)
	err := cli.runErr(newRootCmd(cli).ExecuteContext(ctx))
	cli.Close()
	stop()
	stopProfile()
	if err != nil {
		line, code := errorReport(cli, err)
		fmt.Fprintln(os.Stderr, line)
		os.Exit(code)
	}
}

// startCPUProfile writes a CPU profile of the whole command to the file
// $GOLDTRACE_CPUPROFILE names, when set (for measuring a command as a user
// runs it, `serve` included); %p in it is the process id, so several
// processes (serve replicas) each keep their own. The returned func ends
// it.
func startCPUProfile() (stop func()) {
	path := os.Getenv("GOLDTRACE_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	path = strings.ReplaceAll(path, "%p", strconv.Itoa(os.Getpid()))
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "goldtrace: GOLDTRACE_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
