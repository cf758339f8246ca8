package render

import (
	"fmt"
	"io"
	"strings"
)

// Whoami is what whoami reports (--json).
type Whoami struct {
	Database     string   `json:"database"`
	DatabaseFrom string   `json:"database_from"` // --db, GOLDTRACE_DB, a config file, default, the server
	Exists       bool     `json:"exists"`
	As           string   `json:"as"`      // "" when no identity is in effect
	AsFrom       string   `json:"as_from"` // --as, a config file, an SSH key, or ""
	Role         string   `json:"role,omitempty"`
	Mode         string   `json:"mode"` // local (trusted) or ssh
	ConfigFiles  []string `json:"config_files"`
}

// WriteWhoami writes r as text or JSON.
func WriteWhoami(w io.Writer, r Whoami, asJSON bool) error {
	if asJSON {
		return JSON(w, r)
	}
	db := r.Database + " (from " + r.DatabaseFrom + ")"
	if !r.Exists {
		db += ": does not exist yet (goldtrace init creates it)"
	}
	fmt.Fprintf(w, "database  %s\n", db)
	switch {
	case r.As == "":
		fmt.Fprintf(w, "as        nobody (give --as NAME, or set as = \"NAME\" in goldtrace.toml)\n")
	case r.Role != "":
		fmt.Fprintf(w, "as        %s, %s (from %s)\n", r.As, r.Role, r.AsFrom)
	default:
		fmt.Fprintf(w, "as        %s (from %s)\n", r.As, r.AsFrom)
	}
	fmt.Fprintf(w, "mode      %s\n", r.Mode)
	files := "none"
	if len(r.ConfigFiles) > 0 {
		files = strings.Join(r.ConfigFiles, ", ")
	}
	fmt.Fprintf(w, "config    %s\n", files)
	return nil
}
