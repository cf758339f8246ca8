package main

import (
	"strings"
	"testing"
)

// TestUsageSlips: the common slips get a one-line answer that names the
// fix: a mistyped flag its nearest flag, --min with a space for the = the
// form it takes, one reviewer with the default two per item the flag to
// add, a mistyped user name the user meant (not "add a new user").
func TestUsageSlips(t *testing.T) {
	db, _ := lblProject(t, 2)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"score", "--gold", "x.jsonl", "--formt", "json"}, "unknown flag --formt for goldtrace score: did you mean --format?"},
		{[]string{"labels", "import", "x", "--skip-invalidd"}, "did you mean --skip-invalid?"},
		{[]string{"status", "--zzz"}, "unknown flag --zzz for goldtrace status (goldtrace status --help lists its flags)"},
		{[]string{"score", "--gold", "x.jsonl", "--min", "exact_call", "0.8"}, "--min takes METRIC=VALUE: --min exact_call=0.8, not --min exact_call 0.8"},
		{[]string{"score", "--gold", "x.jsonl", "--max", "hallucinated_tool_rate"}, `--max takes METRIC=VALUE, not "hallucinated_tool_rate"`},
		{[]string{"sample", "--n", "1", "--reviewers", "alice", "--batch", "b9"}, "--per-item 2 is more than the 1 reviewer given (--reviewers alice): name more reviewers, or add --per-item 1"},
		{[]string{"status", "--as", "alcie"}, `no user "alcie": did you mean alice?`},
		{[]string{"sample", "--n", "1", "--reviewers", "alice,bobb", "--batch", "b9"}, `--reviewers: no user "bobb": did you mean bob?`},
		{[]string{"status", "--as", "zed"}, "add one with `goldtrace users add zed --role reviewer`"},
	} {
		_, errOut, code, _ := runCLI(db, "", tt.args...)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tt.args, code, errOut, tt.want)
		}
	}
}
