// Package migrations reads a schema's numbered migration files
// (NNNN_what.sql), for every store engine's migrations runner.
package migrations

import (
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// Migration is one numbered file of a schema's migrations.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Load reads the NNNN_what.sql files at the root of fsys in order of
// number (none when fsys is nil). A file named otherwise, or two files of
// one number (the second would count as applied once the first is, and
// never run), is an error.
func Load(fsys fs.FS) ([]Migration, error) {
	if fsys == nil {
		return nil, nil
	}
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, name := range names {
		num, _, ok := strings.Cut(name, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration %s: name must be NNNN_what.sql", name)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migrations %s and %s have the same number", out[i-1].Name, out[i].Name)
		}
	}
	return out, nil
}
