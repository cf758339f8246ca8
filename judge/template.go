package judge

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"strings"
	"text/template"
)

// Kind names a judge.
type Kind string

// The three judges.
const (
	// KindArgs grades the arguments against the reference label: 1, 0.5 or 0.
	KindArgs Kind = "args"
	// KindSelection classifies the tool selection as correct or incorrect
	// from the conversation and the tools alone.
	KindSelection Kind = "selection"
	// KindQuality asks for several yes/no judgments; the score is the
	// share of yes.
	KindQuality Kind = "quality"
)

// Kinds lists the judges.
var Kinds = []Kind{KindArgs, KindSelection, KindQuality}

// ParseKind checks a --judge value.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown judge %q (one of args, selection, quality)", s)
}

//go:embed templates/*.tmpl
var templateFiles embed.FS

// Template is a judge's prompt: Go text/template text over Input, rendered
// into the one user message the judge is sent.
type Template struct {
	Kind   Kind
	Text   string
	SHA256 string // of Text, recorded in reports and cache keys
	tmpl   *template.Template
}

// DefaultTemplate returns the prompt that ships with the binary for kind.
func DefaultTemplate(kind Kind) (*Template, error) {
	data, err := templateFiles.ReadFile("templates/" + string(kind) + ".tmpl")
	if err != nil {
		return nil, fmt.Errorf("unknown judge %q", kind)
	}
	return ParseTemplate(kind, string(data))
}

// ParseTemplate parses a replacement prompt (--judge-template) for kind.
// It must render without error for a sample input.
func ParseTemplate(kind Kind, text string) (*Template, error) {
	t, err := template.New(string(kind)).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("template: %v", oneLineErr(err))
	}
	sum := sha256.Sum256([]byte(text))
	tp := &Template{Kind: kind, Text: text, SHA256: hex.EncodeToString(sum[:]), tmpl: t}
	if _, err := tp.Render(&Input{}); err != nil {
		return nil, err
	}
	return tp, nil
}

// Render fills the template with one item's input.
func (t *Template) Render(in *Input) (string, error) {
	var b bytes.Buffer
	if err := t.tmpl.Execute(&b, in.fields()); err != nil {
		return "", fmt.Errorf("template: %v", oneLineErr(err))
	}
	return b.String(), nil
}

// Fields lists what a template may use.
const Fields = "{{.Conversation}} {{.Tools}} {{.Expected}} {{.Acceptable}} {{.Rationale}} {{.Calls}}"

func oneLineErr(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}
