package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	gapp "github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
)

// exportOptions are the flags of goldtrace export.
type exportOptions struct {
	out     string
	message string
	batches []string
	where   []string
	as      string
	force   bool
	partial bool
	formats []string
	asJSON  bool
}

// exportResult is what export reports (--json).
type exportResult struct {
	Name      string   `json:"name"`
	Version   int      `json:"version"`
	Unchanged bool     `json:"unchanged"` // nothing changed: no version written
	Count     int      `json:"count"`
	SHA256    string   `json:"sha256"`
	Added     int      `json:"added"`
	Removed   int      `json:"removed"`
	Changed   int      `json:"changed"`
	Files     []string `json:"files"`
}

func newExportCmd(app *App) *cobra.Command {
	var o exportOptions
	cmd := &cobra.Command{
		Use:   "export NAME | NAME@vN",
		Short: "Export the current gold items as the next version of dataset NAME (or re-materialise NAME@vN)",
		Long: `export writes NAME-vN.jsonl (one gold record per line, sorted by id, byte-reproducible)
and NAME-vN.manifest.json into --out, and keeps both in the database. Versions start
at 1 and never change. Exporting when the gold has not changed since the last version
writes nothing unless --force.

export NAME@vN writes the stored files of an existing version again, byte for byte.

--where takes meta.NAME=VALUE (trace metadata), status=agreed|adjudicated or
tool=NAME (expected tool, "(none)" for no call); repeated keys are alternatives,
different keys must all hold.

--format also writes the version in the shape another tool reads (repeatable):
  openai-evals  NAME-vN.openai-evals.jsonl (legacy evals registry rows) and the current
                Evals API's NAME-vN.openai-evals.items.jsonl + NAME-vN.openai-evals.eval.json
  langsmith     NAME-vN.langsmith.jsonl: dataset examples (inputs, outputs, metadata)
  promptfoo     NAME-vN.promptfoo.jsonl tests and a runnable NAME-vN.promptfooconfig.yaml
  inspect       NAME-vN.inspect.jsonl: inspect_ai samples (input, target, metadata)
  deepeval      NAME-vN.deepeval.json: goldens with expected_tools
  bfcl          NAME-vN.bfcl.jsonl questions, NAME-vN.bfcl.possible_answer.jsonl, and
                NAME-vN.bfcl.report.txt listing the rules BFCL cannot express
  hf            NAME-vN.hf/: a Hugging Face dataset folder (README.md card, data/test.jsonl)`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range o.formats {
				if !dataset.ValidFormat(f) {
					return fmt.Errorf("--format %q: want jsonl, %s", f, strings.Join(dataset.Formats, ", "))
				}
			}
			if ref, isRef, err := dataset.ParseRef(args[0]); isRef {
				if err != nil {
					return err
				}
				for _, flag := range []string{"message", "batch", "where", "as", "force"} {
					if cmd.Flags().Changed(flag) {
						return fmt.Errorf("--%s does not apply to re-materialising %s (it is immutable)", flag, ref)
					}
				}
				return rematerialise(cmd.Context(), app, ref, o)
			}
			if err := dataset.ValidName(args[0]); err != nil {
				return err
			}
			// Leads only, always with an identity (recorded as created_by).
			be, who, err := app.Actor(cmd, o.as)
			if err != nil {
				return err
			}
			if who, err = be.Permit(cmd.Context(), who, gapp.ActExport, args[0]); err != nil {
				return fmt.Errorf("export: %w", err)
			}
			o.as = who.Name
			if err := exportNext(cmd.Context(), app, args[0], o); err != nil {
				return err
			}
			return be.Audit(cmd.Context(), who, gapp.ActExport, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.out, "out", ".", "directory to write the files into")
	f.StringVarP(&o.message, "message", "m", "", "what this version is (kept in the manifest)")
	f.StringSliceVar(&o.batches, "batch", nil, "only items of these batches (repeatable)")
	f.StringArrayVar(&o.where, "where", nil, "only items with KEY=VALUE: meta.NAME, status, tool (repeatable)")
	f.StringVar(&o.as, "as", "", "the lead exporting (recorded as created_by)")
	f.BoolVar(&o.force, "force", false, "write a new version even when nothing changed")
	f.BoolVar(&o.partial, "allow-partial", false, "export although items of the selected batches are still open (being labeled or disputed)")
	f.StringSliceVar(&o.formats, "format", nil, "also write "+strings.Join(dataset.Formats, "|")+" (repeatable)")
	f.BoolVar(&o.asJSON, "json", false, "print the result as JSON")
	return cmd
}

// parseWhere turns --where flags into a store filter and the sorted list the
// manifest records.
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
			if v != dataset.StatusAgreed && v != dataset.StatusAdjudicated {
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

func distinctSorted(s []string) []string {
	m := map[string]bool{}
	out := []string{}
	for _, x := range s {
		if !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func exportNext(ctx context.Context, app *App, name string, o exportOptions) error {
	filter, whereList, err := parseWhere(o.where)
	if err != nil {
		return err
	}
	filter.Batches = distinctSorted(o.batches)
	st, err := app.Store(ctx)
	if err != nil {
		return err
	}
	if err := checkOpenItems(ctx, app, st, name, filter.Batches, o.partial); err != nil {
		return err
	}
	defer claimExportDir(o.out, name)()
	latest, err := st.LatestDatasetVersion(ctx, name)
	hasParent := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
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
	// Records are built while the traces are still being read.
	reading := newMeter(app, "export "+name+": gold items read", "items", 0)
	build, built := dataset.BuildStream(runtime.GOMAXPROCS(0))
	err = st.GoldTracesEach(ctx, filter, func(tg dataset.TraceGold) {
		reading.Add(int64(len(tg.Answers)))
		build(tg)
	})
	lines, buildErr := built()
	reading.Done()
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	if err := buildErr; err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	if len(lines) == 0 {
		return fmt.Errorf("export %s: no gold items to export%s (items become gold when agreed or adjudicated)", name, describeSelection(filter.Batches, whereList))
	}
	content, err := dataset.Assemble(lines)
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	parent, err := parentHashes.wait()
	if err != nil {
		return fmt.Errorf("export %s: %w", name, err)
	}
	// The same records as the last version: the same bytes (whose hash is
	// still being computed).
	if hasParent && content.Same(parent) && !o.force {
		if versionFilesMissing(o.out, name, latest.Version) {
			// Stored, but its files never reached --out (a crash between
			// the commit and the rename, or a new --out): write them.
			fmt.Fprintf(app.Err, "dataset %s: nothing changed since v%d, but v%d had no files in %s: writing them\n", name, latest.Version, latest.Version, o.out)
			return rematerialise(ctx, app, dataset.Ref{Name: name, Version: latest.Version}, o)
		}
		res := exportResult{Name: name, Version: latest.Version, Unchanged: true, Count: latest.Count, SHA256: latest.SHA256, Files: []string{}}
		if o.asJSON {
			return printJSON(app, res)
		}
		fmt.Fprintf(app.Out, "dataset %s: nothing changed since v%d (%d items, sha256 %s); nothing written (--force writes a new version anyway)\n",
			name, latest.Version, latest.Count, latest.SHA256[:12])
		return nil
	}
	info := dataset.VersionInfo{
		Name: name, Version: 1, CreatedAt: st.Now(), CreatedBy: o.as, Message: o.message,
		Selection: dataset.Selection{Batches: filter.Batches, Where: whereList},
	}
	if hasParent {
		info.Version, info.ParentVersion, info.ParentHashes = latest.Version+1, latest.Version, parent
	}
	// Once the content is known the rest runs at once: the data files are
	// written (and fsynced), the content is compressed for the store, the
	// manifest is made, and the version's items go into the database. The
	// version row follows when the manifest and the compressed content are
	// ready, the manifest file when the data files are; the files are
	// renamed into place only after the transaction committed, and removed
	// otherwise.
	compressing := goAsync(func() (store.Compressed, error) { return store.CompressContent(content) })
	type madeManifest struct {
		m     dataset.Manifest
		bytes []byte
	}
	manifesting := goAsync(func() (madeManifest, error) {
		m, b, err := exportManifest(info, content, labels)
		return madeManifest{m, b}, err
	})
	writing := newMeter(app, fmt.Sprintf("export %s: writing v%d", name, info.Version), "MB", 0)
	defer writing.Done()
	staging := goAsync(func() (*stagedFiles, error) {
		return stageVersionFiles(o.out, name, info.Version, meteredContent{content, writing}, func() ([]byte, error) {
			made, err := manifesting.wait()
			return made.bytes, err
		}, o.formats, false)
	})
	err = st.WriteDatasetVersion(ctx, name, info.Version, content.Hashes, func() (store.NewVersion, error) {
		made, err := manifesting.wait()
		if err != nil {
			return store.NewVersion{}, err
		}
		blob, err := compressing.wait()
		if err != nil {
			return store.NewVersion{}, err
		}
		if _, err := staging.wait(); err != nil {
			return store.NewVersion{}, err
		}
		row := store.DatasetVersion{Name: name, Version: info.Version, ParentVersion: info.ParentVersion, CreatedAt: made.m.CreatedAt,
			CreatedBy: o.as, Message: o.message, SHA256: made.m.SHA256, Count: made.m.Count}
		return store.NewVersion{Row: row, Manifest: made.bytes, Content: blob}, nil
	})
	files, stageErr := staging.wait()
	manifesting.wait() // it reads the store: done before export returns
	if err != nil {
		if files != nil {
			files.abort()
		}
		if stageErr != nil {
			return stageErr
		}
		return fmt.Errorf("export %s: %w", name, err)
	}
	made, _ := manifesting.wait()
	manifest := made.m
	paths, err := files.commit()
	if err != nil {
		return fmt.Errorf("export %s: v%d is stored but its files could not be put in place (%w); write them with: goldtrace export %s@v%d --out %s",
			name, info.Version, err, name, info.Version, o.out)
	}
	res := exportResult{Name: name, Version: info.Version, Count: len(content.Lines), SHA256: content.SHA256(),
		Added: len(manifest.Changes.Added), Removed: len(manifest.Changes.Removed), Changed: len(manifest.Changes.Changed), Files: paths}
	if o.asJSON {
		return printJSON(app, res)
	}
	fmt.Fprintf(app.Out, "exported %s v%d: %d items (%d added, %d removed, %d changed), sha256 %s\n",
		name, info.Version, res.Count, res.Added, res.Removed, res.Changed, res.SHA256[:12])
	for _, p := range paths {
		fmt.Fprintf(app.Out, "  %s\n", p)
	}
	return nil
}

// exportManifest makes the manifest of a new version (info has the parent
// version's record hashes), with the agreement of the exported items' labels.
func exportManifest(info dataset.VersionInfo, content dataset.Content, labels *async[[][]review.Label]) (dataset.Manifest, []byte, error) {
	all, err := labels.wait()
	if err != nil {
		return dataset.Manifest{}, nil, fmt.Errorf("agreement: %w", err)
	}
	exported := make([][]review.Label, 0, min(len(all), len(content.Lines)))
	for _, ls := range all {
		if _, ok := content.Hashes[ls[0].Item]; ok {
			exported = append(exported, ls)
		}
	}
	info.Labels = labelAgreement(exported)
	m := dataset.NewManifest(info, content)
	b, err := dataset.EncodeManifest(m)
	return m, b, err
}

// checkOpenItems counts the items of the selected batches (all batches when
// none is named) that are not gold yet: not started, being labeled or
// disputed. A version exported now would lack them: refused unless
// allowPartial, which says on stderr how many are left out.
func checkOpenItems(ctx context.Context, app *App, st *store.Store, name string, batches []string, allowPartial bool) error {
	scope := batches
	if len(scope) == 0 {
		scope = []string{""}
	}
	var notStarted, labeling, disputed int
	for _, b := range scope {
		s, l, err := st.OpenItemCounts(ctx, b)
		if err != nil {
			return err
		}
		d, err := st.DisputedQueue(ctx, store.DisputeFilter{Batch: b})
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
	fmt.Fprintf(app.Err, "export %s: %s; they are not in this version (--allow-partial)\n", name, what)
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

// rematerialise writes the stored files of an existing version again.
func rematerialise(ctx context.Context, app *App, ref dataset.Ref, o exportOptions) error {
	be, who, err := app.ActorCtx(ctx)
	if err != nil {
		return err
	}
	v, content, manifest, err := be.DatasetFiles(ctx, who, ref.Name, ref.Version)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%s: no such dataset version (goldtrace datasets lists them)", ref)
	}
	if err != nil {
		return err
	}
	files, err := stageVersionFiles(o.out, ref.Name, ref.Version, storedJSONL(content), func() ([]byte, error) { return manifest, nil }, o.formats, true)
	if err != nil {
		return err
	}
	paths, err := files.commit()
	if err != nil {
		return fmt.Errorf("write %s: %w", ref, err)
	}
	res := exportResult{Name: v.Name, Version: v.Version, Count: v.Count, SHA256: v.SHA256, Files: paths}
	if o.asJSON {
		return printJSON(app, res)
	}
	fmt.Fprintf(app.Out, "wrote %s: %d items, sha256 %s\n", ref, v.Count, v.SHA256[:12])
	for _, p := range paths {
		fmt.Fprintf(app.Out, "  %s\n", p)
	}
	return nil
}

// meteredContent counts a version's bytes on a meter each time it is
// written out.
type meteredContent struct {
	c io.WriterTo
	m *meter
}

func (mc meteredContent) WriteTo(w io.Writer) (int64, error) {
	return mc.c.WriteTo(meteredWriter{w, mc.m})
}

// storedJSONL is a version's JSONL as the store gives it back; unlike a
// bytes.Reader it can be written any number of times.
type storedJSONL []byte

func (b storedJSONL) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(b)
	return int64(n), err
}

// stageVersionFiles writes the canonical JSONL (content), the files of any
// other formats and the manifest of a version to temporary files in dir
// (content is written once per file). manifest blocks until the manifest is
// made: the canonical file is written meanwhile, the formats (some of which
// describe the version) and the manifest after it. A new version refuses to
// replace files already there; a re-materialised one restores them.
func stageVersionFiles(dir, name string, version int, content io.WriterTo, manifest func() ([]byte, error), formats []string, replace bool) (*stagedFiles, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("--out %s is a file, not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", dir, unwrapPath(err))
	}
	var others []dataset.FormatFile
	for _, f := range distinctSorted(formats) {
		if f == "jsonl" {
			continue
		}
		files, err := dataset.FormatFiles(name, version, f)
		if err != nil {
			return nil, err
		}
		others = append(others, files...)
	}
	// The manifest comes last: once it is in place, so is what it describes.
	names := []string{dataset.FileName(name, version)}
	for _, f := range others {
		names = append(names, filepath.FromSlash(f.Path))
	}
	names = append(names, dataset.ManifestName(name, version))
	for _, n := range names {
		final := filepath.Join(dir, n)
		if _, err := os.Lstat(final); err == nil && !replace {
			return nil, fmt.Errorf("%s already exists, but v%d of %s is new in this database: move it away or choose another --out", final, version, name)
		}
	}
	staged := &stagedFiles{}
	fail := func(err error) (*stagedFiles, error) {
		staged.abort()
		return nil, err
	}
	if err := staged.add(filepath.Join(dir, names[0]), func(w io.Writer) error { _, err := content.WriteTo(w); return err }); err != nil {
		return fail(err)
	}
	mb, err := manifest()
	if err != nil {
		return fail(err)
	}
	var m *dataset.Manifest
	if len(others) > 0 {
		parsed, err := dataset.ParseManifest(mb)
		if err != nil {
			return fail(fmt.Errorf("manifest of %s v%d: %w", name, version, err))
		}
		m = &parsed
	}
	for _, f := range others {
		final := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := staged.mkdirs(dir, filepath.Dir(final)); err != nil {
			return fail(err)
		}
		err := staged.add(final, func(w io.Writer) error {
			// The JSONL streams through a pipe into the converter.
			pr, pw := io.Pipe()
			go func() {
				_, err := content.WriteTo(pw)
				pw.CloseWithError(err)
			}()
			err := f.Write(w, pr, m)
			pr.CloseWithError(errors.New("format conversion stopped")) // ends the writer if it is still writing
			if err != nil {
				return fmt.Errorf("format %s: %w", f.Path, err)
			}
			return nil
		})
		if err != nil {
			return fail(err)
		}
	}
	if err := staged.add(filepath.Join(dir, names[len(names)-1]), writeBytes(mb)); err != nil {
		return fail(err)
	}
	return staged, nil
}

// writeBytes writes b, as stagedFiles.add wants it.
func writeBytes(b []byte) func(io.Writer) error {
	return func(w io.Writer) error { _, err := w.Write(b); return err }
}

func printJSON(app *App, v any) error {
	enc := json.NewEncoder(app.Out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// labelAgreement is the manifest's agreement summary of the reviewers'
// labels on the exported items: the share of items whose labels agree
// completely, kappa on the first tool (Cohen's for one reviewer pair; Light's,
// the mean of the pairs' Cohen's kappas, for more) and Krippendorff's alpha.
func labelAgreement(items [][]review.Label) dataset.LabelAgreement {
	var out dataset.LabelAgreement
	agreed, compared := 0, 0
	for _, labels := range items {
		if len(labels) < 2 {
			continue
		}
		compared++
		if review.Compare(labels).Agreed {
			agreed++
		}
	}
	if compared > 0 {
		p := float64(agreed) / float64(compared)
		out.PercentAgreement = &p
	}
	a := review.Agree(items)
	var sum float64
	n := 0
	for _, pair := range a.Pairs {
		if pair.Kappa.Kappa != nil {
			sum += *pair.Kappa.Kappa
			n++
		}
	}
	if n > 0 {
		k := sum / float64(n)
		out.KappaTool = &k
	}
	out.AlphaTool = a.Alpha.Alpha
	return out
}
