package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/review"
	"github.com/goldtrace/goldtrace/store"
	"github.com/goldtrace/goldtrace/trace"
)

func newLabelsCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "labels",
		Short: "Labels as JSON Lines: export them, or import labels made elsewhere",
	}
	cmd.AddCommand(newLabelsExportCmd(app), newLabelsImportCmd(app))
	return cmd
}

func newLabelsExportCmd(app *App) *cobra.Command {
	var f store.LabelFilter
	var out string
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write submitted labels as JSON Lines (stdout, or --out FILE)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := app.Store(cmd.Context())
			if err != nil {
				return err
			}
			w := app.Out
			var tmp *os.File
			if out != "" && out != "-" {
				if tmp, err = os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-"); err != nil {
					return fmt.Errorf("export labels to %s: %w", out, err)
				}
				defer os.Remove(tmp.Name())
				w = tmp
			}
			bw := bufio.NewWriter(w)
			enc := json.NewEncoder(bw)
			n := 0
			err = st.Labels(cmd.Context(), f, func(l review.Label) error {
				if l.Calls == nil {
					l.Calls = []review.LabelCall{}
				}
				n++
				return enc.Encode(l)
			})
			if err == nil {
				err = bw.Flush()
			}
			if tmp != nil {
				if err == nil {
					err = tmp.Chmod(0o644)
				}
				if cerr := tmp.Close(); err == nil {
					err = cerr
				}
				if err == nil {
					err = os.Rename(tmp.Name(), out)
				}
			}
			if err != nil {
				return fmt.Errorf("export labels: %w", err)
			}
			if tmp != nil {
				fmt.Fprintf(app.Err, "exported %d labels to %s\n", n, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&f.Batch, "batch", "", "only labels of this batch")
	cmd.Flags().StringVar(&f.Reviewer, "reviewer", "", "only labels by this reviewer")
	cmd.Flags().StringVar(&out, "out", "", "write to FILE instead of stdout")
	return cmd
}

// labelsImportReport is what labels import did.
type labelsImportReport struct {
	File     string   `json:"file"`
	Imported int      `json:"imported"`
	Agreed   int      `json:"agreed"`
	Disputed int      `json:"disputed"`
	Invalid  []string `json:"invalid"`
}

func newLabelsImportCmd(app *App) *cobra.Command {
	var skipInvalid, asJSON bool
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Submit labels from a JSON Lines file, checked exactly like the label screen (atomic unless --skip-invalid)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := app.Store(cmd.Context())
			if err != nil {
				return err
			}
			name := args[0]
			var r io.Reader = app.In
			if name != "-" {
				f, err := os.Open(name)
				if err != nil {
					return fmt.Errorf("labels import: %w", err)
				}
				defer f.Close()
				r = f
			}
			im := labelsImporter{st: st, cmd: cmd, file: name, seen: map[[2]string]bool{}}
			labels, lines, err := im.read(r)
			if err != nil {
				return err
			}
			rep := labelsImportReport{File: name, Invalid: im.problems}
			if rep.Invalid == nil {
				rep.Invalid = []string{}
			}
			for _, p := range im.problems {
				fmt.Fprintln(app.Err, p)
			}
			if len(im.problems) > 0 && !skipInvalid {
				return fmt.Errorf("%d invalid label(s) in %s; nothing imported (fix them, or --skip-invalid to import the valid ones)", len(im.problems), name)
			}
			sets, err := st.SubmitLabels(cmd.Context(), labels)
			var le *store.LabelError
			if errors.As(err, &le) {
				return fmt.Errorf("%s:%d: %w; nothing imported", name, lines[le.Index], le.Err)
			} else if err != nil {
				return fmt.Errorf("labels import: %w", err)
			}
			rep.Imported = len(labels)
			for _, s := range sets {
				switch {
				case s.Settled && s.Comparison.Agreed:
					rep.Agreed++
				case s.Settled:
					rep.Disputed++
				}
			}
			if asJSON {
				enc := json.NewEncoder(app.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			fmt.Fprintf(app.Out, "imported %d labels from %s (%d items agreed, %d disputed", rep.Imported, name, rep.Agreed, rep.Disputed)
			if len(rep.Invalid) > 0 {
				fmt.Fprintf(app.Out, "; %d invalid skipped", len(rep.Invalid))
			}
			fmt.Fprintln(app.Out, ")")
			return nil
		},
	}
	cmd.Flags().BoolVar(&skipInvalid, "skip-invalid", false, "import the valid labels and report the invalid ones")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the outcome as JSON")
	return cmd
}

// labelsImporter reads and checks labels line by line.
type labelsImporter struct {
	st       *store.Store
	cmd      *cobra.Command
	file     string
	seen     map[[2]string]bool
	problems []string
}

// read returns the valid labels with their line numbers, recording a
// "FILE:LINE: what" problem for every invalid one.
func (im *labelsImporter) read(r io.Reader) ([]review.Label, []int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var labels []review.Label
	var lines []int
	for line := 1; ; line++ {
		raw, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(raw)) > 0 {
			if l, problem := im.check(raw); problem != "" {
				im.problems = append(im.problems, fmt.Sprintf("%s:%d: %s", im.file, line, problem))
			} else {
				labels, lines = append(labels, l), append(lines, line)
			}
		}
		if errors.Is(err, io.EOF) {
			return labels, lines, nil
		} else if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %w", im.file, line, err)
		}
	}
}

// check parses one line and checks it like the label screen would.
func (im *labelsImporter) check(raw []byte) (review.Label, string) {
	ctx := im.cmd.Context()
	var l review.Label
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return l, "not a label: " + err.Error()
	}
	switch {
	case l.Item == "":
		return l, `"item" is missing`
	case l.Reviewer == "":
		return l, `"reviewer" is missing`
	case l.Seconds < 0:
		return l, `"seconds" cannot be negative`
	}
	key := [2]string{l.Item, l.Reviewer}
	if im.seen[key] {
		return l, fmt.Sprintf("a second label by %s for %s in this file", l.Reviewer, l.Item)
	}
	im.seen[key] = true
	tools, err := im.st.ItemTools(ctx, l.Item)
	if errors.Is(err, store.ErrNotFound) {
		return l, fmt.Sprintf("unknown item %s", l.Item)
	} else if err != nil {
		return l, err.Error()
	}
	a, err := im.st.Assignment(ctx, l.Item, l.Reviewer)
	if errors.Is(err, store.ErrNotFound) {
		return l, fmt.Sprintf("%s is not assigned item %s", l.Reviewer, l.Item)
	} else if err != nil {
		return l, err.Error()
	}
	if a.Status == store.AssignSubmitted {
		return l, fmt.Sprintf("%s already submitted a label for %s", l.Reviewer, l.Item)
	}
	for i, c := range l.Calls {
		if canon, err := trace.Canonical(c.Args); err == nil {
			l.Calls[i].Args = canon
		}
	}
	if ps := review.ValidateLabel(l, tools); len(ps) > 0 {
		msg := ps[0].Message
		for _, p := range ps[1:] {
			msg += "; " + p.Message
		}
		return l, msg
	}
	return l, ""
}
