package app

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	good := "# project settings\n\ndb = \"support.db\"   # shared\nas = 'alice'\n"
	values, err := ParseConfig("goldtrace.toml", []byte(good))
	if err != nil || values["db"] != "support.db" || values["as"] != "alice" {
		t.Fatalf("%v %v", values, err)
	}
	for _, tc := range []struct{ text, want string }{
		{"db = \"a.db\"\ncolour = \"blue\"\n", `goldtrace.toml:2: unknown key "colour"`},
		{"db = a.db\n", `goldtrace.toml:1: key "db": value a.db is not a string`},
		{"as = \"alice\n", `goldtrace.toml:1: key "as": unterminated string`},
		{"[project]\ndb = \"a.db\"\n", "goldtrace.toml:1: table [project]"},
		{"db = \"a.db\"\ndb = \"b.db\"\n", `goldtrace.toml:2: key "db" is set twice`},
		{"just words\n", `goldtrace.toml:1: want key = "value"`},
		{"as = \"\"\n", `goldtrace.toml:1: key "as" is empty`},
		{"db = \"a.db\" extra\n", `goldtrace.toml:1: key "db": unexpected "extra"`},
	} {
		if _, err := ParseConfig("goldtrace.toml", []byte(tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.text, err, tc.want)
		}
	}
}
