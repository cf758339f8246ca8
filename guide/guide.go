package guide

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"regexp"
	"strings"
)

//go:embed default.md
var defaultBody string

// Default is the guide goldtrace ships; it is stored as the first version
// when a project never set one.
func Default() string { return defaultBody }

// ID is a guide version's id: "g_" + the first 12 hex digits of the sha256
// of its body.
func ID(body string) string {
	sum := sha256.Sum256([]byte(body))
	return "g_" + hex.EncodeToString(sum[:])[:12]
}

// Version is one stored guide text.
type Version struct {
	ID        string `json:"id"`
	Body      string `json:"body"`
	Author    string `json:"author"`
	CreatedAt string `json:"created_at"`
}

var headingRE = regexp.MustCompile("^#{1,6}\\s+`?([^`]+?)`?\\s*#*\\s*$")

// Headings lists the markdown headings of body, in order, without their
// leading #s and backquotes (lines inside code fences are not headings).
func Headings(body string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if m := headingRE.FindStringSubmatch(t); m != nil {
			out = append(out, m[1])
		}
	}
	return out
}
