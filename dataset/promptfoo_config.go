package dataset

import (
	"fmt"
	"io"
)

// writePromptfooConfig writes NAME-vN.promptfooconfig.yaml: the tests of
// NAME-vN.promptfoo.jsonl, the messages as the prompt (a JSON chat, which
// promptfoo's OpenAI-compatible providers send as the conversation), and no
// provider: `promptfoo eval -c FILE -r PROVIDER` runs it, or a providers:
// entry added to the file. Each test passes its tools to the provider
// through its options.
func writePromptfooConfig(w io.Writer, _ io.Reader, m *Manifest) error {
	if m == nil {
		return fmt.Errorf("the promptfoo config needs the version's manifest")
	}
	_, err := fmt.Fprintf(w, `# promptfoo config for goldtrace dataset %[1]s v%[2]d (%[3]d items, sha256 %[4]s).
# Run it against a model:   promptfoo eval -c %[5]s -r openai:chat:gpt-4.1-mini
# (or add a providers: list below). Each test sends the conversation before the decision point
# with the item's tools and passes when the model's tool calls match the gold answer under its
# argument rules (exactly what goldtrace score's exact_call counts), and reports tool-call-f1
# on the expected tool names.
description: %[6]s
prompts:
  - id: goldtrace-messages
    label: conversation
    raw: '{{ messages | dump }}'
tests:
  - file://%[7]s
`, m.Name, m.Version, m.Count, m.SHA256, promptfooConfigName(m.Name, m.Version), yamlString(fmt.Sprintf("goldtrace %s v%d", m.Name, m.Version)),
		fmt.Sprintf("%s-v%d.promptfoo.jsonl", m.Name, m.Version))
	return err
}

// promptfooConfigName is the promptfoo config file of a version.
func promptfooConfigName(name string, version int) string {
	return fmt.Sprintf("%s-v%d.promptfooconfig.yaml", name, version)
}
