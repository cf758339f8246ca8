package app

import (
	"context"
	"fmt"
	"io"
)

// DatasetContent streams the JSONL of one version for actor (DatasetFiles
// returns it whole): score --gold NAME@vN reads a large version without
// holding it decompressed. Same authorization as DatasetFiles.
func (a *App) DatasetContent(ctx context.Context, actor Actor, name string, version int) (io.ReadCloser, error) {
	if _, err := a.authorize(ctx, actor, ActDatasetRead, fmt.Sprintf("%s@v%d", name, version)); err != nil {
		return nil, err
	}
	return a.st.DatasetContent(ctx, name, version)
}
