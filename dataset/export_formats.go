package dataset

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/gold"
)

// FormatFile is one file an export format writes beside the canonical
// JSONL. Path is relative to the export directory and slash-separated (the
// hf format writes a folder).
type FormatFile struct {
	Path string
	// Write converts the canonical dataset read from content; m is the
	// version's manifest (the hf card and the promptfoo config name it).
	Write func(w io.Writer, content io.Reader, m *Manifest) error
}

// exportFormats is the one list of export shapes: each one's name, what
// it writes (goldtrace export --help shows it), and its files. Formats,
// FormatFiles and FormatHelp read it.
var exportFormats = []struct {
	name, help string
	files      func(base, name string, version int) []FormatFile
}{
	{"openai-evals", `NAME-vN.openai-evals.jsonl (legacy evals registry rows) and the current
Evals API's NAME-vN.openai-evals.items.jsonl + NAME-vN.openai-evals.eval.json`,
		func(base, _ string, _ int) []FormatFile {
			return []FormatFile{rowFile(base+".jsonl", "openai-evals"), {base + ".items.jsonl", writeOpenAIEvalItems}, {base + ".eval.json", writeOpenAIEvalConfig}}
		}},
	{"langsmith", "NAME-vN.langsmith.jsonl: dataset examples (inputs, outputs, metadata)",
		func(base, _ string, _ int) []FormatFile { return []FormatFile{rowFile(base+".jsonl", "langsmith")} }},
	{"promptfoo", "NAME-vN.promptfoo.jsonl tests and a runnable NAME-vN.promptfooconfig.yaml",
		func(base, name string, version int) []FormatFile {
			return []FormatFile{rowFile(base+".jsonl", "promptfoo"), {promptfooConfigName(name, version), writePromptfooConfig}}
		}},
	{"bfcl", `NAME-vN.bfcl.jsonl questions, NAME-vN.bfcl.possible_answer.jsonl, and
NAME-vN.bfcl.report.txt listing the rules BFCL cannot express`,
		func(base, _ string, _ int) []FormatFile {
			return []FormatFile{{base + ".jsonl", writeBFCLQuestions}, {base + ".possible_answer.jsonl", writeBFCLAnswers}, {base + ".report.txt", writeBFCLReport}}
		}},
	{"inspect", "NAME-vN.inspect.jsonl: inspect_ai samples (input, target, metadata)",
		func(base, _ string, _ int) []FormatFile { return []FormatFile{rowFile(base+".jsonl", "inspect")} }},
	{"deepeval", "NAME-vN.deepeval.json: goldens with expected_tools",
		func(base, _ string, _ int) []FormatFile { return []FormatFile{{base + ".json", writeDeepEval}} }},
	{"hf", "NAME-vN.hf/: a Hugging Face dataset folder (README.md card, data/test.jsonl)",
		func(base, _ string, _ int) []FormatFile {
			return []FormatFile{{base + "/README.md", writeHFCard}, {base + "/data/test.jsonl", writeHFRows}}
		}},
	{"tau2", `NAME-vN.tau2.json: τ²-bench tasks (message history up to the decision,
expected calls as actions with compare_args) and NAME-vN.tau2.report.txt
listing what τ² cannot express (no-call items, loose rules, alternatives)`,
		func(base, _ string, _ int) []FormatFile {
			return []FormatFile{{base + ".json", writeTau2Tasks}, {base + ".report.txt", writeTau2Report}}
		}},
}

// Formats are the export shapes besides the canonical JSONL, by name.
var Formats = func() []string {
	out := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		out[i] = f.name
	}
	return out
}()

// rowFile is a file written one row per record (WriteFormat).
func rowFile(path, format string) FormatFile {
	return FormatFile{path, func(w io.Writer, content io.Reader, _ *Manifest) error { return WriteFormat(w, format, content) }}
}

// FormatFiles lists the files format writes for version of name, in the
// order they are written. An unknown format is an error naming the known
// ones.
func FormatFiles(name string, version int, format string) ([]FormatFile, error) {
	for _, f := range exportFormats {
		if f.name == format {
			return f.files(fmt.Sprintf("%s-v%d.%s", name, version, format), name, version), nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (want jsonl, %s)", format, strings.Join(Formats, ", "))
}

// FormatHelp describes every export shape, one per paragraph, each line
// indented under its name: what goldtrace export --help lists.
func FormatHelp() string {
	var b strings.Builder
	for _, f := range exportFormats {
		for i, line := range strings.Split(f.help, "\n") {
			if i == 0 {
				fmt.Fprintf(&b, "  %-13s %s\n", f.name, line)
			} else {
				fmt.Fprintf(&b, "  %-13s %s\n", "", line)
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// maxFormatLine bounds one record line eachRecord reads.
const maxFormatLine = 1 << 30

// eachRecord decodes the canonical dataset in content and calls fn with each
// record, naming the line of a record that fails.
func eachRecord(content io.Reader, fn func(gold.Record) error) error {
	sc := bufio.NewScanner(content)
	sc.Buffer(make([]byte, 0, 1<<20), maxFormatLine)
	for n := 1; sc.Scan(); n++ {
		var rec gold.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
		if err := fn(rec); err != nil {
			return fmt.Errorf("line %d (%s): %w", n, rec.ID, err)
		}
	}
	return sc.Err()
}

// jsonLines writes one JSON value per line, without HTML escaping.
type jsonLines struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

func newJSONLines(w io.Writer) *jsonLines {
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &jsonLines{bw, enc}
}

func (j *jsonLines) write(v any) error { return j.enc.Encode(v) }
func (j *jsonLines) flush() error      { return j.bw.Flush() }

// jsonText is v as compact JSON text (for fields a consumer wants as one
// string column).
func jsonText(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// writeJSONArray writes one JSON array of the values convert makes from the
// records of content, one element per line ("[", the elements, "]" on lines
// of their own); convert returns nil to leave a record out.
func writeJSONArray(w io.Writer, content io.Reader, convert func(gold.Record) (any, error)) error {
	lines := newJSONLines(w)
	if _, err := lines.bw.WriteString("[\n"); err != nil {
		return err
	}
	first := true
	err := eachRecord(content, func(r gold.Record) error {
		v, err := convert(r)
		if err != nil || v == nil {
			return err
		}
		sep := ",\n"
		if first {
			sep, first = "", false
		}
		b, err := jsonText(v)
		if err != nil {
			return err
		}
		_, err = lines.bw.WriteString(sep + b)
		return err
	})
	if err != nil {
		return err
	}
	if _, err := lines.bw.WriteString("\n]\n"); err != nil {
		return err
	}
	return lines.flush()
}
