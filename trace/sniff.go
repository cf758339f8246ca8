package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// formatProvider is what sniffing says for request/response logs: OpenAI or
// Anthropic, decided record by record.
const formatProvider = "provider"

// sniff names the format of one record from its top-level keys.
func sniff(data []byte) (string, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return "", fmt.Errorf("cannot detect the format: record is %s, not a JSON object", jsonKind(data))
		}
		return "", describeJSONError(err)
	}
	if attrs, ok := obj["attributes"]; ok && len(attrs) > 0 && attrs[0] == '{' {
		var inner map[string]json.RawMessage
		if json.Unmarshal(attrs, &inner) == nil {
			if f := sniffAttributes(inner); f != "" {
				return f, nil
			}
		}
	}
	if f := sniffAttributes(obj); f != "" {
		return f, nil
	}
	has := func(k string) bool { _, ok := obj[k]; return ok }
	switch {
	case has("run_type") && (has("inputs") || has("outputs")):
		return FormatLangSmith, nil
	case has("observations"):
		return FormatLangfuse, nil
	case has("span_attributes"), has("root_span_id") && has("input"):
		return FormatBraintrust, nil
	case has("info") && has("data"):
		return FormatMLflow, nil
	case has("resourceSpans"), has("resourceLogs"), has("scopeSpans"), has("traceId") && has("spanId"):
		return FormatOTLP, nil
	case has("request"), has("response"), has("request_body"), has("response_body"), has("body"), has("choices"),
		has("contents"), has("inputText"), has("object") && has("output"), has("input") && has("model"):
		return formatProvider, nil
	case has("messages") && (has("model") || has("system") || has("max_tokens") || has("toolConfig") || has("modelId")) && !has("metadata"):
		return formatProvider, nil
	case has("messages"):
		return FormatTrace, nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 8 {
		keys = append(keys[:8], "…")
	}
	return "", fmt.Errorf("cannot detect the format from keys [%s]; pass --format", strings.Join(keys, " "))
}

// sniffAttributes recognises flattened span attributes.
func sniffAttributes(attrs map[string]json.RawMessage) string {
	switch {
	case isOpenInference(attrs):
		return FormatOpenInference
	case hasGenAI(attrs):
		return FormatOTLP
	}
	for k := range attrs {
		if strings.HasPrefix(k, "llm.") {
			return FormatOTLP // OpenLLMetry's llm.request.* beside gen_ai.*
		}
	}
	return ""
}

// autoDecoder sniffs the format from the first record that is a JSON object
// and hands every record to that format's decoder. Records before it are
// invalid records.
type autoDecoder struct {
	cache schemaCache
	inner decoder
}

func (d *autoDecoder) record(line int, data []byte) []result {
	if d.inner == nil {
		format, err := sniff(data)
		if err != nil {
			return errResult(line, err)
		}
		switch format {
		case formatProvider:
			d.inner = &providerDecoder{cache: d.cache}
		case FormatTrace:
			d.inner = &canonicalDecoder{cache: d.cache}
		case FormatLangSmith, FormatLangfuse, FormatBraintrust, FormatMLflow:
			d.inner = newGroupDecoder(format, d.cache)
		default:
			d.inner = newSpanDecoder(d.cache, format)
		}
	}
	return d.inner.record(line, data)
}

func (d *autoDecoder) flush() []result {
	if d.inner == nil {
		return nil
	}
	return d.inner.flush()
}

var errNotObject = errors.New("record is not a JSON object")
