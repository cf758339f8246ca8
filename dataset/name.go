package dataset

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// namePattern is what a dataset name may look like: it becomes part of file
// names, so no path separators, spaces or '@'.
var namePattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)
})

// ValidName reports why name cannot name a dataset, or nil.
func ValidName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("dataset name is empty")
	case strings.ContainsAny(name, `/\`):
		return fmt.Errorf("dataset name %q contains a path separator", name)
	case strings.ContainsAny(name, " \t\r\n"):
		return fmt.Errorf("dataset name %q contains white space", name)
	case strings.Contains(name, ".."):
		return fmt.Errorf("dataset name %q contains '..'", name)
	case !namePattern().MatchString(name):
		return fmt.Errorf("dataset name %q: use letters, digits, '.', '_' and '-' (at most 100, starting with a letter or digit)", name)
	}
	return nil
}

// Ref names one version of a dataset: NAME@vN.
type Ref struct {
	Name    string
	Version int
}

func (r Ref) String() string { return r.Name + "@v" + strconv.Itoa(r.Version) }

// ParseRef parses NAME@vN (also NAME@N). ok is false when s has no '@',
// i.e. is not meant as a reference.
func ParseRef(s string) (ref Ref, ok bool, err error) {
	name, ver, found := strings.Cut(s, "@")
	if !found {
		return Ref{}, false, nil
	}
	if err := ValidName(name); err != nil {
		return Ref{}, true, err
	}
	n, convErr := strconv.Atoi(strings.TrimPrefix(ver, "v"))
	if convErr != nil || n < 1 {
		return Ref{}, true, fmt.Errorf("%q: version must look like v1, v2, …", s)
	}
	return Ref{Name: name, Version: n}, true, nil
}

// FileName is the canonical JSONL file of a version.
func FileName(name string, version int) string {
	return fmt.Sprintf("%s-v%d.jsonl", name, version)
}

// ManifestName is the manifest file beside FileName.
func ManifestName(name string, version int) string {
	return fmt.Sprintf("%s-v%d.manifest.json", name, version)
}

// FormatFileName is the file of version in another shape (see Formats).
func FormatFileName(name string, version int, format string) string {
	return fmt.Sprintf("%s-v%d.%s.jsonl", name, version, format)
}

// ManifestBeside is the manifest path for a canonical JSONL path.
func ManifestBeside(jsonlPath string) string {
	return strings.TrimSuffix(jsonlPath, ".jsonl") + ".manifest.json"
}
