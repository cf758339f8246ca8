package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/fserr"
	"github.com/goldtrace/goldtrace/internal/input"
)

// goldtrace verify: a dataset file (with the manifest beside it, another,
// or none) or a stored version checked line by line against its manifest.

// VerifyRequest is one verify run.
type VerifyRequest struct {
	// Target is a dataset file (or its manifest), or NAME@vN (a stored
	// version, when no file of that name exists; always over SSH).
	Target string
	// Manifest is the manifest to check against ("": the one beside the
	// file); NoManifest checks the lines only.
	Manifest   string
	NoManifest bool
	// Deep decodes every line, also those the manifest vouches for.
	Deep bool
	// Remote: the request came over SSH, where operands are never files.
	Remote bool
	// Backend opens the project for a stored version (a file needs none):
	// the App and the actor who reads it.
	Backend func(ctx context.Context) (*App, Actor, error)
	// Progress, when set, is told the file's size (0 unknown) and returns
	// what counts the bytes read and what ends the report.
	Progress func(what string, size int64) (add func(n int64), done func())
}

// VerifyResult is what verify reports (--json).
type VerifyResult struct {
	File     string `json:"file"`
	Manifest string `json:"manifest,omitempty"`
	OK       bool   `json:"ok"`
	Records  int    `json:"records"`
	SHA256   string `json:"sha256,omitempty"`
	Error    string `json:"error,omitempty"`
	// Stored: a version kept in the database, checked against its own
	// manifest.
	Stored bool `json:"-"`
}

// Verify checks req.Target (a stored version as req.Backend's actor, who
// needs ActDatasetRead). A mismatch is not an error: the result is not OK and
// says why (Error, FILE:LINE: what); the error is for what kept the check
// from running.
func Verify(ctx context.Context, req VerifyRequest) (VerifyResult, error) {
	file := req.Target
	if ref, isRef, refErr := dataset.ParseRef(file); isRef || req.Remote {
		if !OpensFile(file, isRef, req.Remote) {
			if err := RefOnly(file, isRef, refErr); err != nil {
				return VerifyResult{}, err
			}
			if req.Backend == nil {
				return VerifyResult{}, fmt.Errorf("%s: no such file, and no database to read a dataset version from", file)
			}
			a, actor, err := req.Backend(ctx)
			if err != nil {
				return VerifyResult{}, err
			}
			return a.verifyStored(ctx, actor, ref)
		}
	}
	if strings.HasSuffix(file, ".manifest.json") {
		file = strings.TrimSuffix(file, ".manifest.json") + ".jsonl"
	}
	f, err := os.Open(file)
	if err != nil {
		return VerifyResult{}, fmt.Errorf("verify %s: %w", file, fserr.Bare(err))
	}
	defer f.Close()
	res := VerifyResult{File: file}
	var m *dataset.Manifest
	if !req.NoManifest {
		if res.Manifest = req.Manifest; res.Manifest == "" {
			res.Manifest = dataset.ManifestBeside(file)
		}
		b, err := os.ReadFile(res.Manifest)
		if errors.Is(err, os.ErrNotExist) {
			return res.failed(fmt.Errorf("%s: no manifest beside it (%s); --manifest PATH or --no-manifest", file, res.Manifest)), nil
		}
		if err != nil {
			return VerifyResult{}, fmt.Errorf("read manifest: %w", fserr.Bare(err))
		}
		parsed, err := dataset.ParseManifest(b)
		if err != nil {
			return res.failed(fmt.Errorf("%s: %w", res.Manifest, err)), nil
		}
		m = &parsed
	}
	var r io.Reader = f
	if req.Progress != nil {
		var size int64
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
		add, done := req.Progress("verify "+file, size)
		defer done()
		r = input.Counted(f, add)
	}
	verify := dataset.Verify
	if req.Deep {
		verify = dataset.VerifyDeep
	}
	sum, err := verify(r, m)
	res.Records, res.SHA256 = sum.Records, sum.SHA256
	if err != nil {
		return res.failed(lineError(file, err)), nil
	}
	res.OK = true
	return res, nil
}

// verifyStored checks a version kept in the database against its own
// manifest.
func (a *App) verifyStored(ctx context.Context, actor Actor, ref dataset.Ref) (VerifyResult, error) {
	v, content, manifest, err := a.DatasetFiles(ctx, actor, ref.Name, ref.Version)
	if err != nil {
		return VerifyResult{}, err
	}
	res := VerifyResult{File: ref.String(), Manifest: ref.String() + " manifest", Stored: true}
	m, err := dataset.ParseManifest(manifest)
	if err != nil {
		return res.failed(fmt.Errorf("%s: stored manifest: %w", ref, err)), nil
	}
	sum, err := dataset.Verify(bytes.NewReader(content), &m)
	res.Records, res.SHA256 = sum.Records, sum.SHA256
	if err == nil && sum.SHA256 != v.SHA256 {
		err = fmt.Errorf("sha256 %s, the version row says %s", sum.SHA256, v.SHA256)
	}
	if err != nil {
		return res.failed(lineError(ref.String(), err)), nil
	}
	res.OK = true
	return res, nil
}

func (r VerifyResult) failed(err error) VerifyResult {
	r.OK, r.Error = false, err.Error()
	return r
}

// lineError is err of the dataset named name, as NAME:LINE: what when it
// is about one line.
func lineError(name string, err error) error {
	var le *dataset.LineError
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%d: %v", name, le.Line, le.Err)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// OpensFile says whether an operand that may name a file or a stored
// dataset version (diff, verify, score --gold) is read as a file: when it
// is not NAME@vN, or a file of that name exists. Over SSH (remote) never:
// the server's files are not the client's, and whether one exists is not
// something a client may learn.
func OpensFile(arg string, isRef, remote bool) bool {
	if remote {
		return false
	}
	_, err := os.Stat(arg)
	return err == nil || !isRef
}

// RefOnly is the error for an operand taken as a stored version that is
// not a valid one (refErr from dataset.ParseRef).
func RefOnly(arg string, isRef bool, refErr error) error {
	if !isRef {
		return fmt.Errorf("%q: over SSH name a dataset version as NAME@vN", arg)
	}
	return refErr
}
