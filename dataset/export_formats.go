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

// FormatFiles lists the files format writes for version of name, in the
// order they are written. An unknown format is an error naming the known
// ones.
func FormatFiles(name string, version int, format string) ([]FormatFile, error) {
	base := fmt.Sprintf("%s-v%d.%s", name, version, format)
	rows := func(path, f string) FormatFile {
		return FormatFile{path, func(w io.Writer, content io.Reader, _ *Manifest) error { return WriteFormat(w, f, content) }}
	}
	switch format {
	case "openai-evals":
		return []FormatFile{
			rows(base+".jsonl", format),
			{base + ".items.jsonl", writeOpenAIEvalItems},
			{base + ".eval.json", writeOpenAIEvalConfig},
		}, nil
	case "langsmith", "inspect":
		return []FormatFile{rows(base+".jsonl", format)}, nil
	case "promptfoo":
		return []FormatFile{
			rows(base+".jsonl", format),
			{promptfooConfigName(name, version), writePromptfooConfig},
		}, nil
	case "deepeval":
		return []FormatFile{{base + ".json", writeDeepEval}}, nil
	case "bfcl":
		return []FormatFile{
			{base + ".jsonl", writeBFCLQuestions},
			{base + ".possible_answer.jsonl", writeBFCLAnswers},
			{base + ".report.txt", writeBFCLReport},
		}, nil
	case "hf":
		return []FormatFile{
			{base + "/README.md", writeHFCard},
			{base + "/data/test.jsonl", writeHFRows},
		}, nil
	}
	return nil, fmt.Errorf("unknown format %q (want jsonl, %s)", format, strings.Join(Formats, ", "))
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
