package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/store"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// CLI is what every command shares: the streams, the database location and
// the store, opened on first use.
type CLI struct {
	In     io.Reader
	Out    io.Writer
	Err    io.Writer
	DBPath string
	// ReadOnly (--read-only) opens the database for reading only.
	ReadOnly bool
	store    *store.Store
	// completionErr is why shell completion could offer nothing (no
	// database): main reports it and exits 2.
	completionErr error
	backend       *app.App
	// dbFrom says where DBPath came from (whoami); config is what the
	// config files set; mayCreate lets the command create a missing
	// database (import, demo, users add, init).
	dbFrom    string
	config    config
	mayCreate bool
	// quietCreate: the command says "created" itself (init).
	quietCreate bool
	// remote: the command tree runs one command for an SSH client (goldtrace
	// serve builds one per command), which never asks for shell completion.
	remote bool
}

// NewCLI returns a CLI over the given streams.
func NewCLI(in io.Reader, out, errw io.Writer) *CLI {
	return &CLI{In: in, Out: out, Err: errw}
}

// Store opens the database named by --db (or GOLDTRACE_DB) once.
func (a *CLI) Store(ctx context.Context) (*store.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	missing, err := checkDBPath(a.DBPath)
	if err != nil {
		return nil, err
	}
	if missing && !a.mayCreate {
		return nil, fmt.Errorf("no goldtrace database at %s (set --db or GOLDTRACE_DB, or run goldtrace init)", a.DBPath)
	}
	st, err := store.OpenWith(ctx, a.DBPath, store.Options{ReadOnly: a.ReadOnly})
	if err != nil {
		if strings.Contains(err.Error(), a.DBPath) {
			return nil, err
		}
		return nil, fmt.Errorf("database %s: %w", a.DBPath, err)
	}
	if missing && !a.quietCreate {
		// A mistyped --db must not quietly start a new project.
		fmt.Fprintf(a.Err, "created %s\n", a.DBPath)
	}
	a.store = st
	return st, nil
}

// checkDBPath says whether the database file at path is missing (and may
// be created), or why it cannot be a database file: a directory, a parent
// directory that does not exist or is a file. A URL (another engine) is
// left to the store.
func checkDBPath(path string) (missing bool, err error) {
	if strings.Contains(path, "://") {
		return false, nil
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir():
		return false, fmt.Errorf("database %s is a directory, not a goldtrace database file (give a file path, e.g. --db %s)",
			path, shellQuote(filepath.Join(path, "goldtrace.db")))
	case err == nil:
		return false, nil
	case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return false, fmt.Errorf("database %s: %w", path, fserr.Bare(err))
	}
	dir := filepath.Dir(path)
	switch di, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return true, fmt.Errorf("database %s: directory %s does not exist", path, dir)
	case err != nil:
		return true, fmt.Errorf("database %s: directory %s: %w", path, dir, fserr.Bare(err))
	case !di.IsDir():
		return true, fmt.Errorf("database %s: %s is not a directory", path, dir)
	}
	return true, nil
}

// completionBackend opens the database read-only for shell completion
// (never creating it, apart from the store the command would use);
// closeStore closes it.
func (a *CLI) completionBackend(ctx context.Context) (be *app.App, closeStore func(), err error) {
	if _, err := os.Stat(a.DBPath); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("no goldtrace database at %s to complete from (set --db or GOLDTRACE_DB)", a.DBPath)
	}
	st, err := store.OpenWith(ctx, a.DBPath, store.Options{ReadOnly: true})
	if err != nil {
		return nil, nil, fmt.Errorf("complete from %s: %w", a.DBPath, err)
	}
	return app.New(st), func() { st.Close() }, nil
}

// Close closes the store if it was opened.
func (a *CLI) Close() {
	if a.store != nil {
		a.store.Close()
		a.store = nil
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
	err = store.Explain(cli.DBPath, err)
	return "goldtrace: " + oneLine(err.Error()), exitCode(err)
}

// oneLine folds a multi-line error message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
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
