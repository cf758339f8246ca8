package app

import (
	"context"
	"fmt"
	"io"

	"github.com/goldtrace/goldtrace/dataset"
)

// NoVersionError answers for a dataset version that does not exist, in the
// words every command uses; errors.Is(err, ErrNotFound) holds.
type NoVersionError struct{ Ref dataset.Ref }

func (e *NoVersionError) Error() string {
	return e.Ref.String() + ": no such dataset version (goldtrace datasets lists them)"
}

func (e *NoVersionError) Unwrap() error { return ErrNotFound }

// noVersion turns the store's not found for name@vversion into a
// *NoVersionError.
func noVersion(err error, name string, version int) error {
	if isNotFound(err) {
		return &NoVersionError{Ref: dataset.Ref{Name: name, Version: version}}
	}
	return err
}

// DatasetContent streams the JSONL of one version for actor (DatasetFiles
// returns it whole): score --gold NAME@vN reads a large version without
// holding it decompressed. Same authorization as DatasetFiles.
func (a *App) DatasetContent(ctx context.Context, actor Actor, name string, version int) (io.ReadCloser, error) {
	if _, err := a.authorize(ctx, actor, ActDatasetRead, fmt.Sprintf("%s@v%d", name, version)); err != nil {
		return nil, err
	}
	rc, err := a.st.DatasetContent(ctx, name, version)
	return rc, noVersion(err, name, version)
}
