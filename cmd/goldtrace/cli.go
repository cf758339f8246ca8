package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/app/render"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// CLI is what every command shares: the streams, the database location and
// the App over it, opened on first use.
type CLI struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	DBPath string
	// ReadOnly (--read-only) opens the database for reading only.
	ReadOnly bool
	// closeDB closes the database open() opened (nil: none, or the SSH
	// server's, which the server closes).
	closeDB func()
	// completionErr is why shell completion could offer nothing (no
	// database): main reports it and exits 2.
	completionErr error
	backend       *app.App
	// dbFrom says where DBPath came from (whoami); config is what the
	// config files set; mayCreate lets the command create a missing
	// database (import, demo, users add, init).
	dbFrom    string
	config    app.Config
	mayCreate bool
	// quietCreate: the command says "created" itself (init).
	quietCreate bool
	// remote: the command tree runs one command for an SSH client (goldtrace
	// serve builds one per command), which never asks for shell completion.
	remote bool
	// dbPassword is the password a postgres:// DBPath carried: applyConfig
	// takes it out, so that nothing printed can show it.
	dbPassword string
}

// NewCLI returns a CLI over the given streams.
func NewCLI(in io.Reader, out, errw io.Writer) *CLI {
	return &CLI{In: in, Out: out, Err: errw}
}

// open opens the database named by --db (or GOLDTRACE_DB) once, as the
// App over it.
func (a *CLI) open(ctx context.Context) (*app.App, error) {
	if a.backend != nil {
		return a.backend, nil
	}
	o := app.OpenOptions{DSN: a.DBPath, ReadOnly: a.ReadOnly, Password: a.dbPassword, MayCreate: a.mayCreate,
		Upgrading: func(line string) { fmt.Fprintln(a.Err, line) }}
	if !a.quietCreate {
		o.Created = func(dsn string) { fmt.Fprintf(a.Err, "created %s\n", dsn) }
	}
	be, closeDB, err := app.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	a.backend, a.closeDB = be, closeDB
	return be, nil
}

// dbExists reports whether the project is there: the file, or the schema
// in a PostgreSQL database (which it connects to, creating nothing).
func (a *CLI) dbExists(ctx context.Context) (bool, error) {
	return app.ProjectExists(ctx, a.DBPath, a.dbPassword)
}

// completionBackend opens the database read-only for shell completion
// (never creating it, apart from the store the command would use);
// closeStore closes it.
func (a *CLI) completionBackend(ctx context.Context) (be *app.App, closeStore func(), err error) {
	return app.OpenExisting(ctx, a.DBPath, a.dbPassword)
}

// Close closes the store if it was opened.
func (a *CLI) Close() {
	if a.closeDB != nil {
		a.closeDB()
		a.closeDB = nil
		a.backend = nil
	}
}

// IsTerminal reports whether a stream (an io.Reader or io.Writer) is a
// terminal: progress goes to stderr only then, and the TUI needs one.
func IsTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// exitError carries a specific exit code (docs/architecture.md: 1 = a gate failed or
// verify found a mismatch; 2 = bad usage or bad input).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// failed is the error for "the check ran and did not pass" (exit 1).
func failed(format string, args ...any) error {
	return &exitError{code: 1, err: fmt.Errorf(format, args...)}
}

// runErr returns the error of a run: err, or why completion offered nothing.
func (a *CLI) runErr(err error) error {
	if err == nil {
		return a.completionErr
	}
	return err
}

// exitCode maps an error to the process exit code; anything not marked is
// bad usage or bad input (2).
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 2
}

// errorReport is main's one line for a failed command and its exit code. A
// raw SQLite failure of the database (a corrupt page met by a read, a lock
// held too long) is reworded to name the file and what to do.
func errorReport(cli *CLI, err error) (string, int) {
	err = app.ExplainError(cli.DBPath, err)
	msg := render.OneLine(err.Error())
	if cli.dbPassword != "" {
		// Whatever a driver or a library quoted, the password is not shown.
		msg = strings.ReplaceAll(msg, cli.dbPassword, "********")
	}
	return "goldtrace: " + msg, exitCode(err)
}

// programOptions runs a TUI on the CLI's streams when they are not the
// process's own (tests drive the program through buffers); on the terminal
// otherwise.
func (a *CLI) programOptions() []tea.ProgramOption {
	var opts []tea.ProgramOption
	if _, ok := a.In.(*os.File); !ok {
		opts = append(opts, tea.WithInput(a.In))
	}
	if _, ok := a.Out.(*os.File); !ok {
		opts = append(opts, tea.WithOutput(a.Out))
	}
	return opts
}

// newMeter is a progress meter on the CLI's stderr when that is a
// terminal, quiet otherwise (a pipe, a CI log). total 0 means unknown;
// unit "MB" counts bytes.
func newMeter(cli *CLI, what, unit string, total int64) *render.Meter {
	var w io.Writer
	if IsTerminal(cli.Err) {
		w = cli.Err
	}
	return render.NewMeter(w, what, unit, total)
}
