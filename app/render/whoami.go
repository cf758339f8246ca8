package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/app"
)

// WriteWhoami writes r as text or JSON.
func WriteWhoami(w io.Writer, r app.Whoami, asJSON bool) error {
	if asJSON {
		return JSON(w, r)
	}
	db := r.Database + " (from " + r.DatabaseFrom + ")"
	if r.Database == "" {
		db = "the server's (where it lives is shown to leads)"
	}
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
