package dataset

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// synthVersion is a version of the synthetic support traces' true answers
// (the demo's generator), n traces.
func synthVersion(tb testing.TB, n int) (Content, Manifest) {
	tb.Helper()
	var lines []Line
	for _, c := range synth.GenerateCases(synth.Options{Seed: 7, N: n}) {
		tg := TraceGold{Trace: c.Trace}
		for _, e := range c.Expected {
			a := Answer{Turn: e.Turn, Status: gold.StatusAgreed, Decision: DecisionNoCall, Rationale: "per the guide",
				Reviewers: []string{"alice", "bob"}, GuideVersion: "g_1a2b3c4d5e6f"}
			if !e.NoCall {
				a.Decision = DecisionCall
				for _, call := range e.Calls {
					ec := gold.ExpectedCall{Tool: call.Name, Args: json.RawMessage(call.Arguments)}
					for arg, match := range e.ArgMatch {
						if ec.ArgRules == nil {
							ec.ArgRules = map[string]gold.ArgRule{}
						}
						ec.ArgRules[arg] = gold.ArgRule{Match: match}
					}
					a.Calls = append(a.Calls, ec)
				}
			}
			tg.Answers = append(tg.Answers, a)
		}
		ls, err := BuildLines(tg)
		if err != nil {
			tb.Fatal(err)
		}
		lines = append(lines, ls...)
	}
	c, err := Assemble(lines)
	if err != nil {
		tb.Fatal(err)
	}
	return c, NewManifest(VersionInfo{Name: "support", Version: 1, CreatedAt: time.Date(2026, 5, 3, 0, 0, 0, 0, time.UTC)}, c)
}

// BenchmarkVerify measures verify's throughput (MB/s) on the synthetic
// support version, trusting the manifest's record hashes (fast) and
// decoding every line (deep), side by side.
func BenchmarkVerify(b *testing.B) {
	c, m := synthVersion(b, 2000)
	content := c.Bytes()
	for _, mode := range []struct {
		name   string
		verify func(r *bytes.Reader, m *Manifest) (Summary, error)
	}{
		{"fast", func(r *bytes.Reader, m *Manifest) (Summary, error) { return Verify(r, m) }},
		{"deep", func(r *bytes.Reader, m *Manifest) (Summary, error) { return VerifyDeep(r, m) }},
	} {
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				if _, err := mode.verify(bytes.NewReader(content), &m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestVerifySynthVersion: the fast and the deep check agree on a realistic
// version and on the same version with one byte changed.
func TestVerifySynthVersion(t *testing.T) {
	c, m := synthVersion(t, 200)
	content := c.Bytes()
	fast, err := Verify(bytes.NewReader(content), &m)
	if err != nil {
		t.Fatal(err)
	}
	deep, err := VerifyDeep(bytes.NewReader(content), &m)
	if err != nil {
		t.Fatal(err)
	}
	if fast.Records != deep.Records || fast.SHA256 != deep.SHA256 || len(fast.ToolCounts) != len(deep.ToolCounts) {
		t.Errorf("fast %+v, deep %+v", fast, deep)
	}
	for k, v := range deep.ToolCounts {
		if fast.ToolCounts[k] != v {
			t.Errorf("tool %s: fast %d, deep %d", k, fast.ToolCounts[k], v)
		}
	}
	changed := bytes.Replace(content, []byte(`"rationale":"per the guide"`), []byte(`"rationale":"per the guidE"`), 1)
	_, ferr := Verify(bytes.NewReader(changed), &m)
	_, derr := VerifyDeep(bytes.NewReader(changed), &m)
	if ferr == nil || derr == nil || ferr.Error() != derr.Error() {
		t.Errorf("one changed byte: fast %v, deep %v", ferr, derr)
	}
}
