package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// importReport is `goldtrace import --json`.
type importReport struct {
	Files  []store.ImportResult `json:"files"`
	Failed []importFailure      `json:"failed"`
	Total  store.ImportResult   `json:"total"`
}

type importFailure struct {
	File  string `json:"file"`
	Line  int    `json:"line,omitempty"`
	Error string `json:"error"`
}

func newImportCmd(app *App) *cobra.Command {
	var format string
	var skipInvalid, asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE...",
		Short: "Import traces (trace JSONL, provider logs, OTel GenAI, OpenInference, LangSmith, Langfuse, Braintrust, MLflow; .gz ok; - is stdin)",
		Long: `Import traces into the store. Each file is imported all or nothing: it is read
and validated first, then written in short transactions (reviewers can keep
labeling meanwhile, and may see its traces appear progressively); if writing
fails, what was written is removed again. If it is interrupted (ctrl+c, the
terminal or SSH connection closing, SIGTERM), the unfinished chunk is undone,
the chunks written stay, and traces and status say where it stopped until the
same import is run again to finish it. Without
--skip-invalid the first invalid record aborts that file (nothing from it is
imported) and is reported as FILE:LINE: what. With --skip-invalid the valid
records are imported and every invalid one is reported on stderr. Traces already
stored (same id and content, or same content) are counted, not duplicated. An
empty file is an error.

Formats (--format auto detects them): trace (goldtrace's own JSONL), openai
(chat completions), openai-responses, anthropic (Messages), gemini
(generateContent), bedrock (Converse, Nova, Agents traces) — as logged
request/response pairs, cassettes or bare bodies, streamed bodies (server-sent
events, AWS event streams) included —, otlp (OTel GenAI spans in every
generation of the conventions, span events, OTLP logs), openinference,
langsmith (runs), langfuse (traces with observations), braintrust (spans) and
mlflow (traces). Text that is not UTF-8 is replaced and counted; a trace id
that is not UTF-8 is an invalid record.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !validFormat(format) {
				return fmt.Errorf("--format must be one of %s, not %q", strings.Join(trace.Formats, "|"), format)
			}
			// The audit entry is written after the imports, also when they
			// were interrupted (SIGINT, SIGHUP): what was written is recorded.
			done, err := app.permit(context.WithoutCancel(cmd.Context()), gapp.ActImport, strings.Join(args, " "))
			if err != nil {
				return err
			}
			st, err := app.Store(cmd.Context())
			if err != nil {
				return err
			}
			rep := importReport{Files: []store.ImportResult{}, Failed: []importFailure{}}
			var lastErr error
			for _, path := range args {
				res, err := importOne(cmd, app, st, path, format, skipInvalid)
				if err != nil {
					line, msg := importErrorParts(err)
					rep.Failed = append(rep.Failed, importFailure{File: displayName(path), Line: line, Error: msg})
					if lastErr != nil {
						fmt.Fprintln(app.Err, lastErr)
					}
					lastErr = errors.New(formatImportError(displayName(path), line, msg))
					continue
				}
				rep.Files = append(rep.Files, res)
				rep.Total.Imported += res.Imported
				rep.Total.Duplicates += res.Duplicates
				rep.Total.Skipped += res.Skipped
				rep.Total.Items += res.Items
				rep.Total.ReplacedUTF8 += res.ReplacedUTF8
			}
			rep.Total.Source = "total"
			if asJSON {
				enc := json.NewEncoder(app.Out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				for _, r := range rep.Files {
					printImportResult(app, r)
				}
				if len(rep.Files) > 1 {
					printImportResult(app, rep.Total)
				}
			}
			if err := done(fmt.Sprintf("%d traces imported", rep.Total.Imported)); err != nil {
				// The import's own failure (e.g. what stayed stored when
				// a full disk refused its undo) comes first.
				return errors.Join(lastErr, err)
			}
			return lastErr
		},
	}
	cmd.Flags().StringVar(&format, "format", trace.FormatAuto, strings.Join(trace.Formats, "|"))
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import the valid records and report each invalid one")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	return cmd
}

func validFormat(f string) bool {
	for _, ok := range trace.Formats {
		if f == ok {
			return true
		}
	}
	return false
}

func displayName(path string) string {
	if path == "-" {
		return "stdin"
	}
	return path
}

// importOne imports one file (two passes over it, see store.ImportTraces).
func importOne(cmd *cobra.Command, app *App, st *store.Store, path, format string, skipInvalid bool) (store.ImportResult, error) {
	name := displayName(path)
	in := &importInput{path: path, format: format, stdin: app.In}
	defer in.cleanup()
	opt := store.ImportOptions{
		Source:      name,
		SkipInvalid: skipInvalid,
		OnInvalid: func(e *trace.RecordError) {
			fmt.Fprintln(app.Err, formatImportError(name, e.Line, e.Err.Error()))
		},
	}
	meter := newImportMeter(app.Err, name, IsTerminal(app.Err), time.Now)
	opt.OnProgress = meter.update
	defer meter.done()
	return st.ImportTraces(cmd.Context(), in.open, opt)
}

// importInput opens one import argument once per pass. Standard input is
// copied to a temporary file during the first pass so the second pass can
// read it again; each pass hashes the bytes it reads, so an input that
// changes between the passes fails the import instead of importing
// something that was not checked.
type importInput struct {
	path, format string
	stdin        io.Reader
	spool        *os.File // stdin's copy
	firstSum     []byte   // sha256 of the bytes the first pass read
}

func (in *importInput) open() (trace.Reader, io.Closer, error) {
	var src io.Reader
	var file *os.File
	switch {
	case in.path == "-" && in.spool == nil:
		spool, err := os.CreateTemp("", "goldtrace-import-*.spool")
		if err != nil {
			return nil, nil, fmt.Errorf("spool stdin: %w", err)
		}
		in.spool = spool
		src = io.TeeReader(in.stdin, spool)
	case in.path == "-":
		f, err := os.Open(in.spool.Name())
		if err != nil {
			return nil, nil, fmt.Errorf("read spooled stdin: %w", err)
		}
		file, src = f, f
	default:
		f, err := os.Open(in.path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, nil, errors.New("no such file")
			}
			return nil, nil, err
		}
		if fi, err := f.Stat(); err == nil && fi.IsDir() {
			f.Close()
			return nil, nil, errors.New("is a directory")
		}
		file, src = f, f
	}
	c := &importPassCloser{in: in, file: file, sum: sha256.New()}
	r, err := trace.NewReader(io.TeeReader(src, c.sum), in.format)
	if err != nil {
		c.Close()
		return nil, nil, err
	}
	return r, c, nil
}

// cleanup removes stdin's spool file.
func (in *importInput) cleanup() {
	if in.spool != nil {
		in.spool.Close()
		os.Remove(in.spool.Name())
	}
}

// importPassCloser ends one pass: it closes the file and compares the bytes
// read with the first pass's.
type importPassCloser struct {
	in     *importInput
	file   *os.File
	sum    hash.Hash
	closed bool
}

func (c *importPassCloser) Close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	if c.file != nil {
		c.file.Close()
	}
	sum := c.sum.Sum(nil)
	if c.in.firstSum == nil {
		c.in.firstSum = sum
		return nil
	}
	if !bytes.Equal(sum, c.in.firstSum) {
		return fmt.Errorf("%w (its bytes differ from the first read)", store.ErrInputChanged)
	}
	return nil
}

// importErrorParts splits an import failure into its input line (0 when
// none) and message.
func importErrorParts(err error) (int, string) {
	var uerr *store.UndoError
	if errors.As(err, &uerr) {
		line, msg := importErrorParts(uerr.Err)
		return line, msg + "; " + uerr.Note()
	}
	var ierr *store.InterruptedError
	if errors.As(err, &ierr) {
		return 0, ierr.Error()
	}
	if errors.Is(err, context.Canceled) {
		return 0, "interrupted: nothing imported"
	}
	if errors.Is(err, store.ErrInputChanged) {
		return 0, err.Error() + ": nothing imported"
	}
	var rerr *trace.RecordError
	if errors.As(err, &rerr) {
		return rerr.Line, rerr.Err.Error()
	}
	var readErr *trace.ReadError
	if errors.As(err, &readErr) {
		msg := readErr.Err.Error()
		if strings.Contains(msg, "unexpected EOF") {
			msg = "input ends unexpectedly (truncated gzip file?): nothing imported"
		}
		return readErr.Line, msg
	}
	if errors.Is(err, store.ErrNoRecords) {
		return 0, "no records (empty file): nothing imported"
	}
	return 0, err.Error()
}

func formatImportError(file string, line int, msg string) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, line, msg)
	}
	return fmt.Sprintf("%s: %s", file, msg)
}

func printImportResult(app *App, r store.ImportResult) {
	utf := ""
	if r.ReplacedUTF8 > 0 {
		utf = fmt.Sprintf(", %d with invalid UTF-8 replaced by U+FFFD", r.ReplacedUTF8)
	}
	fmt.Fprintf(app.Out, "%s: imported %d traces, %d already stored, %d invalid skipped, %d items created%s\n",
		r.Source, r.Imported, r.Duplicates, r.Skipped, r.Items, utf)
}
