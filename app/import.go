package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goldtrace/goldtrace/internal/input"
	"github.com/goldtrace/goldtrace/source"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

// ImportOptions say how Import reads its files: the flags of
// `goldtrace import` and where its reports go.
type ImportOptions struct {
	// Format is one of trace.Formats (trace.FormatAuto sniffs).
	Format string
	// SkipInvalid imports a file's valid records and reports the others.
	SkipInvalid bool
	// S3Endpoint is the S3-compatible service s3:// sources are read from
	// ("" is AWS).
	S3Endpoint string
	// Stdin is what the file name "-" reads.
	Stdin io.Reader
	// OnInvalid receives each invalid record that SkipInvalid skips.
	OnInvalid func(file string, e *trace.RecordError)
	// Progress, when set, is called as each file's import begins; the
	// returned update receives its progress, done is called when it ends.
	Progress func(file string) (update func(store.ImportProgress), done func())
}

// ImportReport is what Import did, per file and in total (`import --json`).
type ImportReport struct {
	Files  []store.ImportResult `json:"files"`
	Failed []ImportFailure      `json:"failed"`
	Total  store.ImportResult   `json:"total"`
}

// ImportFailure is a file that was not imported (or not completely: an
// interrupted import, or one whose undo failed, says so in Error).
type ImportFailure struct {
	File  string `json:"file"`
	Line  int    `json:"line,omitempty"`
	Error string `json:"error"`
}

// String is the failure's one line: FILE:LINE: what.
func (f ImportFailure) String() string { return FormatInputError(f.File, f.Line, f.Error) }

// Import imports each file ("-" is opts.Stdin), each all or nothing (see
// store.ImportTraces), and records what it did in the audit log, also when
// it was interrupted. A file that fails does not stop the others; the
// report lists it, and the error is the last failure's line.
func (a *App) Import(ctx context.Context, actor Actor, files []string, o ImportOptions) (ImportReport, error) {
	if !slices.Contains(InputFormats, o.Format) {
		return ImportReport{}, fmt.Errorf("--format must be one of %s, not %q", strings.Join(InputFormats, "|"), o.Format)
	}
	if o.S3Endpoint != "" && !slices.ContainsFunc(files, source.IsS3) {
		return ImportReport{}, errors.New("--s3-endpoint goes with an s3://BUCKET/PREFIX to import")
	}
	shown := make([]string, len(files))
	for i, f := range files {
		shown[i] = f
		if source.IsPostgres(f) {
			shown[i] = source.RedactURL(f) // never store a password in the audit
		}
	}
	object := strings.Join(shown, " ")
	// Authorized (and later audited) without the command's cancellation:
	// an interrupted import is recorded with what it wrote.
	actor, err := a.authorize(context.WithoutCancel(ctx), actor, ActImport, object)
	if err != nil {
		return ImportReport{}, err
	}
	rep := ImportReport{Files: []store.ImportResult{}, Failed: []ImportFailure{}}
	stayed := 0 // traces a failed file's import left stored (interrupted, or not all undone)
	for _, path := range files {
		res, err := a.importFile(ctx, path, o)
		if err != nil {
			line, msg := InputErrorParts(err)
			rep.Failed = append(rep.Failed, ImportFailure{File: DisplayName(path), Line: line, Error: msg})
			stayed += res.Imported
			if uerr := (*store.UndoError)(nil); errors.As(err, &uerr) {
				stayed += len(uerr.Kept)
			}
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
	var failed error
	if n := len(rep.Failed); n > 0 {
		failed = errors.New(rep.Failed[n-1].String())
	}
	if err := a.audit(ctx, actor, ActImport, fmt.Sprintf("%s: %d traces imported", object, rep.Total.Imported+stayed)); err != nil {
		// The import's own failure (e.g. what stayed stored when a full
		// disk refused its undo) comes first.
		return rep, errors.Join(failed, err)
	}
	return rep, failed
}

// importFile imports one file.
func (a *App) importFile(ctx context.Context, path string, o ImportOptions) (store.ImportResult, error) {
	name := DisplayName(path)
	opt := store.ImportOptions{Source: name, SkipInvalid: o.SkipInvalid}
	if o.OnInvalid != nil {
		opt.OnInvalid = func(e *trace.RecordError) { o.OnInvalid(name, e) }
	}
	if o.Progress != nil {
		update, done := o.Progress(name)
		opt.OnProgress = update
		defer done()
	}
	open := func() (store.Input, error) { return openTraceFile(path, o.Format, o.Stdin) }
	if source.IsSource(path) {
		open = func() (store.Input, error) { return openSource(ctx, path, o.Format, o.S3Endpoint) }
	}
	return a.st.ImportTraces(ctx, open, opt)
}

// openSource opens a Parquet source named on the command line; its errors
// are worded for a line that names it already.
func openSource(ctx context.Context, path, format, endpoint string) (store.Input, error) {
	layout, err := sourceLayout(path, format)
	if err != nil {
		return store.Input{}, err
	}
	r, err := source.Open(ctx, path, layout, endpoint)
	if err != nil {
		return store.Input{}, errors.New(strings.TrimPrefix(err.Error(), DisplayName(path)+": "))
	}
	return store.Input{Records: r, Closer: r, Size: r.Size(), Read: r.BytesRead}, nil
}

// openTraceFile opens one import argument ("-" is stdin). A regular file's
// size is known, and the bytes read of it are counted (of the file as
// stored: a .gz file's compressed bytes), so the import can say how far it
// has got before it knows how many records the file holds.
func openTraceFile(path, format string, stdin io.Reader) (store.Input, error) {
	f, size, err := input.Open(path, stdin)
	if err != nil {
		return store.Input{}, err
	}
	in, err := store.OpenInput(f, format, size, f)
	if err != nil {
		f.Close()
	}
	return in, err
}

// DisplayName is how an input is named in messages: its path, or stdin.
func DisplayName(path string) string {
	if path == "-" {
		return "stdin"
	}
	if source.IsPostgres(path) {
		return source.RedactURL(path) // never show or store a password
	}
	return path
}

// InputErrorParts splits the failure of reading or importing an input into
// its input line (0 when none) and message.
func InputErrorParts(err error) (int, string) {
	var uerr *store.UndoError
	if errors.As(err, &uerr) {
		line, msg := InputErrorParts(uerr.Err)
		// Not all was removed: the note says what stays.
		return line, strings.TrimSuffix(msg, diskFullUndone) + "; " + uerr.Note()
	}
	var ierr *store.InterruptedError
	if errors.As(err, &ierr) {
		return 0, ierr.Error()
	}
	if errors.Is(err, context.Canceled) {
		return 0, "interrupted: nothing imported"
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
	if errors.Is(err, store.ErrDiskFull) && !strings.Contains(err.Error(), "nothing imported") {
		return 0, err.Error() + diskFullUndone
	}
	return 0, err.Error()
}

// diskFullUndone ends the line of an import that failed on a full disk and
// undid what it wrote.
const diskFullUndone = " (what the import wrote was removed again: nothing imported)"

// FormatInputError is the one line of an input's failure: FILE:LINE: what,
// or FILE: what.
func FormatInputError(file string, line int, msg string) string {
	if line > 0 {
		return fmt.Sprintf("%s:%d: %s", file, line, msg)
	}
	return fmt.Sprintf("%s: %s", file, msg)
}
