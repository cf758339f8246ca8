package dataset

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
	"github.com/goldtrace/goldtrace/trace"
)

// The hf format is a Hugging Face dataset folder, NAME-vN.hf/: README.md, a
// dataset card whose YAML front matter (pretty_name, license,
// task_categories, tags, size_categories, configs) points the datasets
// library at data/test.jsonl, and whose body carries the manifest's version,
// sha256, count, agreement, guide versions and tool counts. Every row of the
// data file has the same keys with the same JSON types, so the file has one
// Arrow schema: the free-form fields (messages, tools, expected_args,
// arg_rules, expected_calls, acceptable, metadata) are JSON text, and the
// values that are null in the canonical record are strings here
// (expected_tool "(none)", adjudicator "").

// hfRow is one row of data/test.jsonl.
type hfRow struct {
	ID            string   `json:"id"`
	TraceID       string   `json:"trace_id"`
	Turn          int      `json:"turn"`
	Messages      string   `json:"messages"`
	Tools         string   `json:"tools"`
	ExpectedTool  string   `json:"expected_tool"`
	ExpectedArgs  string   `json:"expected_args"`
	ArgRules      string   `json:"arg_rules"`
	ExpectedCalls string   `json:"expected_calls"`
	Acceptable    string   `json:"acceptable"`
	Rationale     string   `json:"rationale"`
	Metadata      string   `json:"metadata"`
	Status        string   `json:"status"`
	Reviewers     []string `json:"reviewers"`
	Adjudicator   string   `json:"adjudicator"`
	GuideVersion  string   `json:"guide_version"`
}

func writeHFRows(w io.Writer, content io.Reader, _ *Manifest) error {
	lines := newJSONLines(w)
	err := eachRecord(content, func(r gold.Record) error {
		row := hfRow{ID: r.ID, TraceID: r.Input.Context.TraceID, Turn: r.Input.Context.Turn, ExpectedTool: r.FirstTool(),
			Rationale: r.Rationale, Status: r.Provenance.Status, Reviewers: r.Provenance.Reviewers,
			GuideVersion: r.Provenance.GuideVersion}
		if row.Reviewers == nil {
			row.Reviewers = []string{}
		}
		if r.Provenance.Adjudicator != nil {
			row.Adjudicator = *r.Provenance.Adjudicator
		}
		rules := json.RawMessage("{}")
		if len(r.ExpectedCalls) > 0 && r.ExpectedCalls[0].ArgRules != nil {
			b, err := json.Marshal(r.ExpectedCalls[0].ArgRules)
			if err != nil {
				return err
			}
			rules = b
		}
		meta := r.Input.Context.Metadata
		if meta == nil {
			meta = map[string]string{}
		}
		msgs := r.Input.Messages
		if msgs == nil {
			msgs = []trace.Message{}
		}
		for _, f := range []struct {
			dst *string
			v   any
		}{
			{&row.Messages, msgs}, {&row.Tools, trace.ChatTools(r.AvailableTools)},
			{&row.ExpectedArgs, r.ExpectedArgs}, {&row.ArgRules, rules},
			{&row.ExpectedCalls, nonNilCalls(r.ExpectedCalls)}, {&row.Acceptable, nonNilAlts(r.Acceptable)},
			{&row.Metadata, meta},
		} {
			s, err := jsonText(f.v)
			if err != nil {
				return err
			}
			*f.dst = s
		}
		if row.ExpectedArgs == "" {
			row.ExpectedArgs = "null"
		}
		return lines.write(row)
	})
	if err != nil {
		return err
	}
	return lines.flush()
}

// yamlString quotes s as a YAML double-quoted scalar (JSON string syntax is
// valid YAML).
func yamlString(s string) string {
	q, _ := jsonText(s) // a string always encodes
	return q
}

// hfSizeCategory is the Hub's size_categories value for n rows.
func hfSizeCategory(n int) string {
	switch {
	case n < 1000:
		return "n<1K"
	case n < 10000:
		return "1K<n<10K"
	case n < 100000:
		return "10K<n<100K"
	case n < 1000000:
		return "100K<n<1M"
	}
	return "1M<n<10M"
}

func writeHFCard(w io.Writer, _ io.Reader, m *Manifest) error {
	if m == nil {
		return fmt.Errorf("the dataset card needs the version's manifest")
	}
	bw := bufio.NewWriter(w)
	title := fmt.Sprintf("%s v%d", m.Name, m.Version)
	fmt.Fprintf(bw, "---\npretty_name: %s\nlicense: other\ntask_categories:\n- text-generation\ntags:\n- tool-calling\n- function-calling\n- goldtrace\n", yamlString(title))
	fmt.Fprintf(bw, "size_categories:\n- %s\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/test.jsonl\n---\n\n", yamlString(hfSizeCategory(m.Count)))
	fmt.Fprintf(bw, "# %s\n\n", title)
	fmt.Fprintf(bw, "Human-labeled gold answers for tool selection: for each decision point of a production agent\n")
	fmt.Fprintf(bw, "conversation, the tool call(s) the model should have made (or that it should call none), labeled\n")
	fmt.Fprintf(bw, "blind by two reviewers and adjudicated by a lead with goldtrace. The license is the data owner's to set.\n\n")
	fmt.Fprintf(bw, "| | |\n|---|---|\n")
	fmt.Fprintf(bw, "| version | %d |\n", m.Version)
	if m.ParentVersion != nil {
		fmt.Fprintf(bw, "| parent version | %d |\n", *m.ParentVersion)
	}
	fmt.Fprintf(bw, "| created | %s by %s |\n", m.CreatedAt, cmp.Or(m.CreatedBy, "-"))
	if m.Message != "" {
		fmt.Fprintf(bw, "| message | %s |\n", mdCell(m.Message))
	}
	fmt.Fprintf(bw, "| items | %d |\n", m.Count)
	fmt.Fprintf(bw, "| sha256 of %s | `%s` |\n", m.File, m.SHA256)
	a := m.Agreement
	fmt.Fprintf(bw, "| agreed / adjudicated | %d / %d |\n", a.Agreed, a.Adjudicated)
	fmt.Fprintf(bw, "| reviewers' percent agreement | %s |\n", optNumber(a.PercentAgreement))
	fmt.Fprintf(bw, "| Cohen's kappa (tool) | %s |\n", optNumber(a.KappaTool))
	fmt.Fprintf(bw, "| Krippendorff's alpha (tool) | %s |\n", optNumber(a.AlphaTool))
	if r := a.Reliability; r != nil {
		fmt.Fprintf(bw, "| Gwet's AC1 (tool), 95%% bootstrap interval | %s |\n", intervalCell(r.AC1))
		fmt.Fprintf(bw, "| kappa (Cohen, Conger) (tool), 95%% bootstrap interval | %s |\n", intervalCell(r.Kappa))
		fmt.Fprintf(bw, "| Krippendorff's alpha (tool), 95%% bootstrap interval | %s |\n", intervalCell(r.Alpha))
	}
	fmt.Fprintf(bw, "| labeling guide versions | %s |\n", cmp.Or(strings.Join(m.GuideVersions, ", "), "-"))
	fmt.Fprintf(bw, "\n## Expected tools\n\n| tool | items |\n|---|---|\n")
	for _, t := range sortedKeys(m.ToolCounts) {
		fmt.Fprintf(bw, "| %s | %d |\n", mdCell(t), m.ToolCounts[t])
	}
	fmt.Fprintf(bw, "\n## Fields\n\n")
	fmt.Fprintf(bw, "`data/test.jsonl` has one row per item. `messages` (the conversation before the decision), `tools`\n")
	fmt.Fprintf(bw, "(OpenAI function shape), `expected_args`, `arg_rules`, `expected_calls`, `acceptable` and `metadata` are\n")
	fmt.Fprintf(bw, "JSON text (decode with `json.loads`) so every row has one schema. `expected_tool` is `(none)` when no\n")
	fmt.Fprintf(bw, "tool should be called; `adjudicator` is empty for items the reviewers agreed on. `arg_rules` maps an\n")
	fmt.Fprintf(bw, "argument (or a JSON Pointer such as `/flights/0/date`) to `{\"match\": \"exact\"|\"fuzzy\"|\"any\",\n")
	fmt.Fprintf(bw, "\"optional\": bool, \"any_of\": [...]}`; `acceptable` lists other complete call lists that are also correct.\n")
	return bw.Flush()
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
}

func optNumber(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.4f", *v)
}

// intervalCell is "0.8123 [0.71, 0.90]", the value alone without an
// interval, or "n/a".
func intervalCell(i Interval) string {
	if i.Value == nil {
		return "n/a"
	}
	if i.Low == nil || i.High == nil {
		return optNumber(i.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", optNumber(i.Value), optNumber(i.Low), optNumber(i.High))
}
