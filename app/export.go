package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// ExportOptions are what to export: the flags of `goldtrace export NAME`.
type ExportOptions struct {
	// Out is the directory the files are written into.
	Out     string
	Message string
	Batches []string
	// Where holds KEY=VALUE filters: meta.NAME, status, tool.
	Where []string
	// Force writes a new version even when nothing changed.
	Force bool
	// AllowPartial exports although items of the selected batches are
	// still open.
	AllowPartial bool
	// Formats are the other shapes to write besides the JSONL.
	Formats []string
	// RecordFormat is the record format of the new version (0: the
	// current one, gold.CurrentRecordFormat). Not a flag: tests export
	// a version as goldtrace before the catalogue member did.
	RecordFormat int
}

// ExportResult is what an export did (`goldtrace export --json`).
type ExportResult struct {
	Name      string   `json:"name"`
	Version   int      `json:"version"`
	Unchanged bool     `json:"unchanged"` // nothing changed: no version written
	Count     int      `json:"count"`
	SHA256    string   `json:"sha256"`
	Added     int      `json:"added"`
	Removed   int      `json:"removed"`
	Changed   int      `json:"changed"`
	Files     []string `json:"files"`
	// Rewritten: the files of a version already stored were written again
	// (NAME@vN, or an unchanged gold whose version had no files in Out).
	Rewritten bool `json:"-"`
}

// Progress shows how far long work has got; the CLI's is a line on a
// terminal's stderr.
type Progress interface {
	Add(n int64)
	Done()
}

// ExportIO is how an export talks to the user while it runs.
type ExportIO struct {
	// Progress starts showing the progress of what, counted in unit ("MB"
	// counts bytes); nil shows none.
	Progress func(what, unit string) Progress
	// Warn tells the user one line (stderr); nil says nothing.
	Warn func(line string)
}

func (eio ExportIO) progress(what, unit string) Progress {
	if eio.Progress == nil {
		return noProgress{}
	}
	return eio.Progress(what, unit)
}

func (eio ExportIO) warn(format string, args ...any) {
	if eio.Warn != nil {
		eio.Warn(fmt.Sprintf(format, args...))
	}
}

type noProgress struct{}

func (noProgress) Add(int64) {}
func (noProgress) Done()     {}

// Export writes the current gold as the next version of dataset name into
// o.Out and stores it (leads only, always with an identity: the actor is the
// manifest's created_by). Nothing changed since the last version: nothing
// is written unless o.Force (the last version's files are written again
// when they are missing from o.Out).
func (a *App) Export(ctx context.Context, actor Actor, name string, o ExportOptions, eio ExportIO) (ExportResult, error) {
	actor, err := a.authorize(ctx, actor, ActExport, name)
	if err != nil {
		return ExportResult{}, fmt.Errorf("export: %w", err)
	}
	// The new version's transaction records the export; an unchanged gold
	// writes none, and the entry is written on its own.
	return act(a, ctx, actor, ActExport, name, func(ctx context.Context) (ExportResult, error) {
		return a.exportNext(ctx, actor.Name, name, o, eio)
	})
}

// Rematerialise writes the stored files of an existing version (and the
// formats asked for) into out again, byte for byte.
func (a *App) Rematerialise(ctx context.Context, actor Actor, ref dataset.Ref, out string, formats []string) (ExportResult, error) {
	if _, err := a.authorize(ctx, actor, ActDatasetRead, ref.String()); err != nil {
		return ExportResult{}, err
	}
	return a.rematerialise(ctx, ref, out, formats)
}

func (a *App) rematerialise(ctx context.Context, ref dataset.Ref, out string, formats []string) (ExportResult, error) {
	v, manifest, err := a.st.DatasetManifest(ctx, ref.Name, ref.Version)
	if err != nil {
		return ExportResult{}, noVersion(err, ref.Name, ref.Version)
	}
	content := storedJSONL{ctx: ctx, st: a.st, name: ref.Name, version: ref.Version}
	files, err := dataset.StageVersionFiles(out, ref.Name, ref.Version, content, func() ([]byte, error) { return manifest, nil }, formats, true)
	if err != nil {
		return ExportResult{}, err
	}
	paths, err := files.Commit()
	if err != nil {
		return ExportResult{}, fmt.Errorf("write %s: %w", ref, err)
	}
	return ExportResult{Name: v.Name, Version: v.Version, Count: v.Count, SHA256: v.SHA256, Files: paths, Rewritten: true}, nil
}

// parseWhere turns export's --where filters into a store filter and the
// sorted list the manifest records.
func parseWhere(where []string) (store.GoldFilter, []string, error) {
	var f store.GoldFilter
	seen := map[string]bool{}
	var list []string
	for _, w := range where {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return f, nil, fmt.Errorf("--where %q: want KEY=VALUE", w)
		}
		switch {
		case strings.HasPrefix(k, "meta.") && len(k) > len("meta."):
			if f.Meta == nil {
				f.Meta = map[string][]string{}
			}
			name := strings.TrimPrefix(k, "meta.")
			f.Meta[name] = append(f.Meta[name], v)
		case k == "status":
			if v != gold.StatusAgreed && v != gold.StatusAdjudicated {
				return f, nil, fmt.Errorf("--where %q: status is agreed or adjudicated", w)
			}
			f.Statuses = append(f.Statuses, v)
		case k == "tool":
			f.Tools = append(f.Tools, v)
		default:
			return f, nil, fmt.Errorf("--where %q: key must be meta.NAME, status or tool", w)
		}
		if !seen[w] {
			seen[w] = true
			list = append(list, w)
		}
	}
	sort.Strings(list)
	return f, list, nil
}

// distinctSorted is s sorted without repeats; never nil (the manifest
// records [] for no batches).
func distinctSorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return slices.Compact(out)
}

// exportNext exports the next version of name. It is one long function
// because the export's steps overlap (the gold is built while it is read;
// the version's items are staged in the store while the content is
// compressed, the manifest made and the files staged) and their waits and
// clean-ups stay in order only in one place.
func (a *App) exportNext(ctx context.Context, createdBy, name string, o ExportOptions, eio ExportIO) (ExportResult, error) {
	filter, whereList, err := parseWhere(o.Where)
	if err != nil {
		return ExportResult{}, err
	}
	filter.Batches = distinctSorted(o.Batches)
	st := a.st
	if err := a.checkOpenItems(ctx, name, filter.Batches, o.AllowPartial, eio); err != nil {
		return ExportResult{}, err
	}
	defer dataset.ClaimExportDir(o.Out, name)()
	latest, err := st.LatestDatasetVersion(ctx, name)
	hasParent := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return ExportResult{}, err
	}
	// The reviewers' labels (for the manifest's agreement) and the record
	// hashes of the last version load while the gold is read and built;
	// whatever happens, they are done with the store before export returns.
	ctx, cancel := context.WithCancel(ctx)
	labels := goAsync(func() ([][]review.Label, error) { return st.LabelsOfItems(ctx, nil) })
	defer labels.wait()
	parentHashes := goAsync(func() (map[string]string, error) {
		if !hasParent {
			return nil, nil
		}
		return st.DatasetRecordHashes(ctx, name, latest.Version)
	})
	defer parentHashes.wait()
	defer cancel()
	reading := eio.progress("export "+name+": gold items read", "items")
	format := o.RecordFormat
	if format == 0 {
		format = gold.CurrentRecordFormat
	}
	// Each record's bytes go to a temporary file as it is built (beside
	// the files when --out exists, so they take room on the same disk):
	// only an index of the records is held while they are put in id order.
	spillDir := ""
	if fi, err := os.Stat(o.Out); err == nil && fi.IsDir() {
		spillDir = o.Out
	}
	lines, release, err := goldLines(ctx, st, filter, format, spillDir, reading)
	defer release()
	reading.Done()
	if err != nil {
		return ExportResult{}, fmt.Errorf("export %s: %w", name, err)
	}
	if len(lines) == 0 {
		return ExportResult{}, fmt.Errorf("export %s: no gold items to export%s (items become gold when agreed or adjudicated)", name, describeSelection(filter.Batches, whereList))
	}
	content, err := dataset.Assemble(lines)
	if err != nil {
		return ExportResult{}, fmt.Errorf("export %s: %w", name, err)
	}
	parent, err := parentHashes.wait()
	if err != nil {
		return ExportResult{}, fmt.Errorf("export %s: %w", name, err)
	}
	// The same records as the last version: the same bytes (whose hash is
	// still being computed).
	// The records are compared with the parent's as its record format
	// writes them: a new format alone changes no item.
	if hasParent && maps.Equal(content.HashesAs(latest.RecordFormat), parent) && !o.Force {
		if dataset.VersionFilesMissing(o.Out, name, latest.Version) {
			// Stored, but its files never reached --out (a crash between
			// the commit and the rename, or a new --out): write them.
			eio.warn("dataset %s: nothing changed since v%d, but v%d had no files in %s: writing them", name, latest.Version, latest.Version, o.Out)
			return a.rematerialise(ctx, dataset.Ref{Name: name, Version: latest.Version}, o.Out, o.Formats)
		}
		return ExportResult{Name: name, Version: latest.Version, Unchanged: true, Count: latest.Count, SHA256: latest.SHA256, Files: []string{}}, nil
	}
	info := dataset.VersionInfo{
		Name: name, Version: 1, CreatedAt: st.Now(), CreatedBy: createdBy, Message: o.Message,
		Selection: dataset.Selection{Batches: filter.Batches, Where: whereList},
	}
	if hasParent {
		info.Version, info.ParentVersion, info.ParentHashes, info.ParentFormat = latest.Version+1, latest.Version, parent, latest.RecordFormat
	}
	// Once the content is known it flows one way, in three steps that
	// overlap: the store stages the version's items (a 'staging' version,
	// in short transactions) while the content is compressed for the store,
	// the manifest made and the data files written and fsynced beside
	// their final names; then the store records the version (content,
	// manifest, 'ready'); then the files are renamed into place. A failure
	// anywhere removes the staging version and the staged files.
	staging := goAsync(func() (*store.StagedVersion, error) {
		return st.StageDatasetVersion(ctx, name, info.Version, content.Hashes)
	})
	// The JSONL is read once (from the records' temporary file), part by
	// part, for the file, its sha256 (the manifest's) and the store's
	// compressed copy.
	compressor := store.NewCompressor(content.NumParts())
	hashed := content.HashWhileWriting()
	type madeManifest struct {
		m     dataset.Manifest
		bytes []byte
	}
	manifesting := goAsync(func() (madeManifest, error) {
		m, b, err := exportManifest(info, content, labels)
		return madeManifest{m, b}, err
	})
	writing := eio.progress(fmt.Sprintf("export %s: writing v%d", name, info.Version), "MB")
	files, err := dataset.StageVersionFiles(o.Out, name, info.Version, &newVersionContent{content, writing, compressor.Add}, func() ([]byte, error) {
		made, err := manifesting.wait()
		return made.bytes, err
	}, o.Formats, false)
	hashed()
	writing.Done()
	made, manifestErr := manifesting.wait()
	blob, compressErr := compressor.Close()
	staged, stageErr := staging.wait()
	if jerr := errors.Join(manifestErr, compressErr, content.Err()); err == nil && jerr != nil {
		err = fmt.Errorf("export %s: %w", name, jerr)
	}
	if err == nil && stageErr == nil {
		row := store.DatasetVersion{Name: name, Version: info.Version, ParentVersion: info.ParentVersion, CreatedAt: made.m.CreatedAt,
			CreatedBy: createdBy, Message: o.Message, SHA256: made.m.SHA256, Count: made.m.Count, RecordFormat: format}
		stageErr = staged.Complete(ctx, store.NewVersion{Row: row, Manifest: made.bytes, Content: blob})
	} else if staged != nil {
		_ = staged.Abort(ctx) // the export fails with err; the next export removes what this could not
	}
	if err != nil || stageErr != nil {
		if files != nil {
			files.Abort()
		}
		if err != nil {
			return ExportResult{}, err
		}
		return ExportResult{}, fmt.Errorf("export %s: %w", name, stageErr)
	}
	manifest := made.m
	paths, err := files.Commit()
	if err != nil {
		return ExportResult{}, fmt.Errorf("export %s: v%d is stored but its files could not be put in place (%w); write them with: goldtrace export %s@v%d --out %s",
			name, info.Version, err, name, info.Version, o.Out)
	}
	return ExportResult{Name: name, Version: info.Version, Count: len(content.Lines), SHA256: content.SHA256(),
		Added: len(manifest.Changes.Added), Removed: len(manifest.Changes.Removed), Changed: len(manifest.Changes.Changed), Files: paths}, nil
}

// goldLines builds the records of the gold filter selects, as an export
// in record format would write them, while the traces are still being read.
// Their bytes are kept in a temporary file in spillDir (os.TempDir when
// ""): release, to be called on every path once the lines (and a Content
// assembled from them) are no longer used, removes it.
func goldLines(ctx context.Context, st *store.Store, filter store.GoldFilter, format int, spillDir string, reading Progress) (lines []dataset.Line, release func(), err error) {
	build, built, release := dataset.BuildSpilled(runtime.GOMAXPROCS(0), format, spillDir)
	err = st.GoldTracesEach(ctx, filter, func(tg dataset.TraceGold) {
		reading.Add(int64(len(tg.Answers)))
		build(tg)
	})
	lines, buildErr := built()
	if err != nil {
		return nil, release, err
	}
	return lines, release, buildErr
}

// checkOpenItems counts the items of the selected batches (all batches when
// none is named) that are not gold yet: not started, being labeled or
// disputed. A version exported now would lack them: refused unless
// allowPartial, which warns how many are left out.
func (a *App) checkOpenItems(ctx context.Context, name string, batches []string, allowPartial bool, eio ExportIO) error {
	scope := batches
	if len(scope) == 0 {
		scope = []string{""}
	}
	var notStarted, labeling, disputed int
	for _, b := range scope {
		s, l, err := a.st.OpenItemCounts(ctx, b)
		if err != nil {
			return err
		}
		d, err := a.st.DisputedQueue(ctx, store.DisputeFilter{Batch: b})
		if err != nil {
			return err
		}
		notStarted, labeling, disputed = notStarted+s, labeling+l, disputed+len(d)
	}
	open := notStarted + labeling + disputed
	if open == 0 {
		return nil
	}
	where := "all batches"
	if len(batches) > 0 {
		where = "batch " + strings.Join(batches, ", ")
	}
	what := fmt.Sprintf("%d items of %s are still open (%d not started, %d being labeled, %d disputed)", open, where, notStarted, labeling, disputed)
	if !allowPartial {
		return fmt.Errorf("export %s: %s, so the version would be partial: finish them (goldtrace status), pick settled batches with --batch, or export anyway with --allow-partial", name, what)
	}
	eio.warn("export %s: %s; they are not in this version (--allow-partial)", name, what)
	return nil
}

func describeSelection(batches, where []string) string {
	var parts []string
	if len(batches) > 0 {
		parts = append(parts, "batch "+strings.Join(batches, ","))
	}
	parts = append(parts, where...)
	if len(parts) == 0 {
		return ""
	}
	return " matching " + strings.Join(parts, ", ")
}

// newVersionContent writes a new version's JSONL, counting its bytes on a
// progress display; the first time, it hands each part as it is written
// to give (the store's compressor).
type newVersionContent struct {
	c    dataset.Content
	p    Progress
	give func(i int, part []byte, release func())
}

func (nc *newVersionContent) WriteTo(w io.Writer) (int64, error) {
	give := nc.give
	nc.give = nil
	return nc.c.WriteParts(progressWriter{w, nc.p}, give)
}

type progressWriter struct {
	w io.Writer
	p Progress
}

func (w progressWriter) Write(b []byte) (int, error) {
	n, err := w.w.Write(b)
	w.p.Add(int64(n))
	return n, err
}

// storedJSONL is a version's JSONL as the store gives it back, read again
// (decompressed as it is written) each time it is written: a version of
// hundreds of MB is never held whole.
type storedJSONL struct {
	ctx     context.Context
	st      *store.Store
	name    string
	version int
}

func (b storedJSONL) WriteTo(w io.Writer) (int64, error) {
	rc, err := b.st.DatasetContent(b.ctx, b.name, b.version)
	if err != nil {
		return 0, noVersion(err, b.name, b.version)
	}
	defer rc.Close()
	return io.Copy(w, rc)
}
