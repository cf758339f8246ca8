package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/internal/input"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

// verifyResult is what verify reports (--json).
type verifyResult struct {
	File     string `json:"file"`
	Manifest string `json:"manifest,omitempty"`
	OK       bool   `json:"ok"`
	Records  int    `json:"records"`
	SHA256   string `json:"sha256,omitempty"`
	Error    string `json:"error,omitempty"`
}

// newVerifyCmd builds goldtrace verify. It is long because the command
// verifies a file or a stored version, with or without a manifest, and
// reports each in text or JSON; the work itself is dataset.Verify's.
func newVerifyCmd(cli *CLI) *cobra.Command {
	var manifestPath string
	var noManifest, asJSON, deep bool
	cmd := &cobra.Command{
		Use:   "verify FILE | NAME@vN",
		Short: "Check a dataset file: every line a canonical gold record, sorted, and matching its manifest",
		Long: `verify re-reads NAME-vN.jsonl: every line must be a gold record in canonical form
(strict: unknown fields, missing fields, other key orders or spacing are errors), ids
sorted without duplicates, and — against NAME-vN.manifest.json beside it — each
record's hash, the sha256, the count and the per-tool counts must match.
NAME@vN checks the copy kept in the database the same way.
Exit 0 with one OK line; exit 1 naming the first bad line (FILE:LINE: what).

A line whose hash is the one the manifest lists for its id is the line that was
exported and is not decoded again (the whole file's sha256 is checked too);
--deep decodes and re-encodes every line anyway. Progress goes to stderr when it
is a terminal.`,
		Example: `  goldtrace verify datasets/support-v3.jsonl
  goldtrace verify datasets/support-v3.jsonl --deep --json
  goldtrace verify support@v3
  goldtrace verify exported.jsonl --no-manifest`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := args[0]
			if ref, isRef, refErr := dataset.ParseRef(file); isRef || cli.remote {
				if !cli.opensFile(file, isRef) {
					if err := cli.refOnly(file, isRef, refErr); err != nil {
						return err
					}
					return verifyStored(cmd, cli, ref, asJSON)
				}
			}
			if strings.HasSuffix(file, ".manifest.json") {
				file = strings.TrimSuffix(file, ".manifest.json") + ".jsonl"
			}
			f, err := os.Open(file)
			if err != nil {
				return fmt.Errorf("verify %s: %w", file, fserr.Bare(err))
			}
			defer f.Close()
			res := verifyResult{File: file}
			var m *dataset.Manifest
			if !noManifest {
				if manifestPath == "" {
					manifestPath = dataset.ManifestBeside(file)
				}
				res.Manifest = manifestPath
				b, err := os.ReadFile(manifestPath)
				if errors.Is(err, os.ErrNotExist) {
					return verifyFailed(cli, asJSON, res, fmt.Errorf("%s: no manifest beside it (%s); --manifest PATH or --no-manifest", file, manifestPath))
				}
				if err != nil {
					return fmt.Errorf("read manifest: %w", fserr.Bare(err))
				}
				parsed, err := dataset.ParseManifest(b)
				if err != nil {
					return verifyFailed(cli, asJSON, res, fmt.Errorf("%s: %w", manifestPath, err))
				}
				m = &parsed
			}
			var size int64
			if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
				size = fi.Size()
			}
			meter := newMeter(cli, "verify "+file, "MB", size)
			verify := dataset.Verify
			if deep {
				verify = dataset.VerifyDeep
			}
			sum, err := verify(input.Counted(f, meter.Add), m)
			meter.Done()
			res.Records, res.SHA256 = sum.Records, sum.SHA256
			if err != nil {
				var le *dataset.LineError
				if errors.As(err, &le) {
					return verifyFailed(cli, asJSON, res, fmt.Errorf("%s:%d: %v", file, le.Line, le.Err))
				}
				return verifyFailed(cli, asJSON, res, fmt.Errorf("%s: %v", file, err))
			}
			res.OK = true
			if asJSON {
				return printJSON(cli, res)
			}
			against := "no manifest checked"
			if m != nil {
				against = "matches " + manifestPath
			}
			fmt.Fprintf(cli.Out, "OK %s: %d records, sha256 %s, %s\n", file, sum.Records, sum.SHA256[:12], against)
			return nil
		},
	}
	cmd.Flags().StringVar(&manifestPath, "manifest", "", "manifest to check against (default: the one beside FILE)")
	cmd.Flags().BoolVar(&noManifest, "no-manifest", false, "check the lines only")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	cmd.Flags().BoolVar(&deep, "deep", false, "decode every line, also those whose hash the manifest vouches for")
	return cmd
}

// verifyFailed reports a mismatch: exit 1.
func verifyFailed(cli *CLI, asJSON bool, res verifyResult, err error) error {
	if asJSON {
		res.Error = err.Error()
		if perr := printJSON(cli, res); perr != nil {
			return perr
		}
	}
	return failed("%v", err)
}

// verifyStored checks a version kept in the database against its own
// manifest.
func verifyStored(cmd *cobra.Command, cli *CLI, ref dataset.Ref, asJSON bool) error {
	be, who, err := cli.Actor(cmd, "")
	if err != nil {
		return err
	}
	v, content, manifest, err := be.DatasetFiles(cmd.Context(), who, ref.Name, ref.Version)
	if err != nil {
		return err
	}
	res := verifyResult{File: ref.String(), Manifest: ref.String() + " manifest"}
	m, err := dataset.ParseManifest(manifest)
	if err != nil {
		return verifyFailed(cli, asJSON, res, fmt.Errorf("%s: stored manifest: %w", ref, err))
	}
	sum, err := dataset.Verify(bytes.NewReader(content), &m)
	res.Records, res.SHA256 = sum.Records, sum.SHA256
	if err == nil && sum.SHA256 != v.SHA256 {
		err = fmt.Errorf("sha256 %s, the version row says %s", sum.SHA256, v.SHA256)
	}
	if err != nil {
		var le *dataset.LineError
		if errors.As(err, &le) {
			return verifyFailed(cli, asJSON, res, fmt.Errorf("%s:%d: %v", ref, le.Line, le.Err))
		}
		return verifyFailed(cli, asJSON, res, fmt.Errorf("%s: %v", ref, err))
	}
	res.OK = true
	if asJSON {
		return printJSON(cli, res)
	}
	fmt.Fprintf(cli.Out, "OK %s: %d records, sha256 %s, matches its stored manifest\n", ref, sum.Records, sum.SHA256[:12])
	return nil
}
