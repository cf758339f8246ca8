package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

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
		Short: "Import traces (JSONL, OTLP, OpenInference, OpenAI or Anthropic logs; .gz ok; - is stdin)",
		Long: `Import traces into the store. Each file is imported in one transaction: without
--skip-invalid the first invalid record aborts that file (nothing from it is
imported) and is reported as FILE:LINE: what. With --skip-invalid the valid
records are imported and every invalid one is reported on stderr. Traces already
stored (same id and content, or same content) are counted, not duplicated. An
empty file is an error.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !validFormat(format) {
				return fmt.Errorf("--format must be one of %s, not %q", strings.Join(trace.Formats, "|"), format)
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

// importOne imports one file in one transaction.
func importOne(cmd *cobra.Command, app *App, st *store.Store, path, format string, skipInvalid bool) (store.ImportResult, error) {
	name := displayName(path)
	r, closer, err := trace.OpenFile(path, format, app.In)
	if err != nil {
		return store.ImportResult{}, err
	}
	defer closer.Close()
	opt := store.ImportOptions{
		Source:      name,
		SkipInvalid: skipInvalid,
		OnInvalid: func(e *trace.RecordError) {
			fmt.Fprintln(app.Err, formatImportError(name, e.Line, e.Err.Error()))
		},
	}
	if IsTerminal(app.Err) {
		opt.OnProgress = func(r store.ImportResult) {
			fmt.Fprintf(app.Err, "\r%s: %d traces imported, %d already stored…", name, r.Imported, r.Duplicates)
		}
		defer fmt.Fprint(app.Err, "\r\033[K")
	}
	return st.ImportTraces(cmd.Context(), r, opt)
}

// importErrorParts splits an import failure into its input line (0 when
// none) and message.
func importErrorParts(err error) (int, string) {
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
	fmt.Fprintf(app.Out, "%s: imported %d traces, %d already stored, %d invalid skipped, %d items created\n",
		r.Source, r.Imported, r.Duplicates, r.Skipped, r.Items)
}
