package app

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/goldtrace/goldtrace/dataset"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

// DiffResult is what goldtrace diff reports (--json).
type DiffResult struct {
	From string `json:"from"`
	To   string `json:"to"`
	dataset.Diff
}

// Diff compares two dataset versions, each a canonical JSONL file or a
// stored version (NAME@vN, read as backend's actor; over SSH, remote,
// operands are never files).
func Diff(ctx context.Context, from, to string, remote bool, backend func(ctx context.Context) (*App, Actor, error)) (DiffResult, error) {
	var srcs [2]dataset.Source
	for i, arg := range []string{from, to} {
		src, closeSrc, err := openDiffSide(ctx, arg, remote, backend)
		if err != nil {
			return DiffResult{}, err
		}
		defer closeSrc()
		srcs[i] = src
	}
	d, err := dataset.DiffSources(srcs[0], srcs[1])
	if err != nil {
		return DiffResult{}, fmt.Errorf("diff: %w", err)
	}
	return DiffResult{From: from, To: to, Diff: d}, nil
}

// openDiffSide opens a file, or a stored version when arg is NAME@vN and no
// file of that name exists.
func openDiffSide(ctx context.Context, arg string, remote bool, backend func(ctx context.Context) (*App, Actor, error)) (dataset.Source, func(), error) {
	ref, isRef, refErr := dataset.ParseRef(arg)
	if OpensFile(arg, isRef, remote) {
		f, err := os.Open(arg)
		if err != nil {
			return dataset.Source{}, nil, fmt.Errorf("diff %s: %w", arg, fserr.Bare(err))
		}
		return dataset.Source{Name: arg, R: f}, func() { f.Close() }, nil
	}
	if err := RefOnly(arg, isRef, refErr); err != nil {
		return dataset.Source{}, nil, err
	}
	a, who, err := backend(ctx)
	if err != nil {
		return dataset.Source{}, nil, err
	}
	_, content, _, err := a.DatasetFiles(ctx, who, ref.Name, ref.Version)
	if err != nil {
		return dataset.Source{}, nil, err
	}
	return dataset.Source{Name: ref.String(), R: bytes.NewReader(content)}, func() {}, nil
}
