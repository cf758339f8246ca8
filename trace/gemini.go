package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Google Gemini generateContent: contents[].parts[] with text, functionCall
// and functionResponse, systemInstruction, tools[].functionDeclarations,
// and a response's candidates[]. Role "model" is the assistant.

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	Text         *string `json:"text"`
	Thought      bool    `json:"thought"`
	FunctionCall *struct {
		ID   string          `json:"id"`
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		ID       string          `json:"id"`
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
}

type geminiRequest struct {
	Model             string          `json:"model"`
	Contents          json.RawMessage `json:"contents"`
	SystemInstruction *geminiContent  `json:"systemInstruction"`
	SystemSnake       *geminiContent  `json:"system_instruction"`
	Tools             []struct {
		FunctionDeclarations []geminiFunction `json:"functionDeclarations"`
		FunctionSnake        []geminiFunction `json:"function_declarations"`
	} `json:"tools"`
	Labels map[string]json.RawMessage `json:"labels"`
}

type geminiFunction struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description"`
	Parameters           json.RawMessage `json:"parameters"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type geminiResponse struct {
	ResponseID   string `json:"responseId"`
	ModelVersion string `json:"modelVersion"`
	Candidates   []struct {
		Content *geminiContent `json:"content"`
	} `json:"candidates"`
	Error json.RawMessage `json:"error"`
}

// geminiMessages converts a list of Gemini contents. A content may hold a
// list or be one object (a single-turn request).
func geminiMessages(raw json.RawMessage, field string) ([]Message, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var list []geminiContent
	switch raw[0] {
	case '[':
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("%s: %w", field, describeJSONError(err))
		}
	case '{':
		var one geminiContent
		if err := json.Unmarshal(raw, &one); err != nil {
			return nil, fmt.Errorf("%s: %w", field, describeJSONError(err))
		}
		list = []geminiContent{one}
	case '"':
		return []Message{{Role: RoleUser, Content: textOf(raw)}}, nil
	default:
		return nil, fmt.Errorf("%s: must be a list of contents, got %s", field, jsonKind(raw))
	}
	var out []Message
	for i, c := range list {
		msgs, err := c.toMessages(RoleUser)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		out = append(out, msgs...)
	}
	return out, nil
}

// toMessages converts one content: its functionResponse parts become tool
// messages, the rest one message of the content's role.
func (c geminiContent) toMessages(defaultRole string) ([]Message, error) {
	role := c.Role
	switch role {
	case "model":
		role = RoleAssistant
	case "function":
		role = RoleTool
	case "":
		role = defaultRole
	}
	role, err := normaliseRole(role)
	if err != nil {
		return nil, err
	}
	msg := Message{Role: role}
	var texts []string
	var results []Message
	for j, p := range c.Parts {
		n := 0
		if p.Text != nil && *p.Text != "" {
			n++
		}
		if p.FunctionCall != nil {
			n++
		}
		if p.FunctionResponse != nil {
			n++
		}
		if n > 1 {
			return nil, fmt.Errorf("parts[%d]: a part holds one of text, functionCall or functionResponse, not several", j)
		}
		switch {
		case p.FunctionCall != nil:
			if p.FunctionCall.Name == "" {
				return nil, fmt.Errorf("parts[%d]: functionCall has no name", j)
			}
			call, err := callFromJSON(p.FunctionCall.ID, p.FunctionCall.Name, p.FunctionCall.Args)
			if err != nil {
				return nil, fmt.Errorf("parts[%d]: %w", j, err)
			}
			msg.ToolCalls = append(msg.ToolCalls, call)
		case p.FunctionResponse != nil:
			if p.FunctionResponse.Name == "" {
				return nil, fmt.Errorf("parts[%d]: functionResponse has no name", j)
			}
			id := p.FunctionResponse.ID
			results = append(results, Message{Role: RoleTool, Name: p.FunctionResponse.Name, ToolCallID: id,
				Content: textOf(p.FunctionResponse.Response)})
		case p.Text != nil && !p.Thought:
			if *p.Text != "" {
				texts = append(texts, *p.Text)
			}
		}
	}
	msg.Content = strings.Join(texts, "\n")
	if len(results) > 0 && msg.Content == "" && len(msg.ToolCalls) == 0 {
		return results, nil
	}
	return append(results, msg), nil
}

// geminiTools reads tools[].functionDeclarations, whose OpenAPI-style
// schemas (types in capitals) are normalised to JSON Schema.
func geminiTools(req geminiRequest, cache schemaCache) ([]Tool, error) {
	var defs []chatTool
	for _, t := range req.Tools {
		for _, f := range append(t.FunctionDeclarations, t.FunctionSnake...) {
			params := f.Parameters
			if len(params) == 0 {
				params = f.ParametersJSONSchema
			}
			defs = append(defs, chatTool{Name: f.Name, Description: f.Description, Parameters: params})
		}
	}
	return chatTools(defs, cache)
}

func geminiTrace(ex exchange, cache schemaCache) (Trace, error) {
	var req geminiRequest
	if err := json.Unmarshal(ex.request, &req); err != nil {
		return Trace{}, describeJSONError(err)
	}
	if len(req.Contents) == 0 {
		return Trace{}, errors.New("request has no contents")
	}
	tools, err := geminiTools(req, cache)
	if err != nil {
		return Trace{}, err
	}
	t := Trace{Tools: tools}
	sys := req.SystemInstruction
	if sys == nil {
		sys = req.SystemSnake
	}
	if sys != nil {
		sys.Role = RoleSystem
		msgs, err := sys.toMessages(RoleSystem)
		if err != nil {
			return Trace{}, fmt.Errorf("systemInstruction: %w", err)
		}
		if len(msgs) == 1 && msgs[0].Content != "" {
			t.Messages = append(t.Messages, msgs...)
		}
	}
	msgs, err := geminiMessages(req.Contents, "contents")
	if err != nil {
		return Trace{}, err
	}
	t.Messages = append(t.Messages, msgs...)
	model := strings.TrimPrefix(req.Model, "models/")
	if ex.response != nil {
		var resp geminiResponse
		if err := json.Unmarshal(ex.response, &resp); err != nil {
			return Trace{}, fmt.Errorf("response: %w", describeJSONError(err))
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0].Content == nil {
			if len(resp.Error) > 0 && string(resp.Error) != "null" {
				return Trace{}, fmt.Errorf("response is an API error: %s", textOf(resp.Error))
			}
			return Trace{}, errors.New("response has no candidates[0].content")
		}
		out, err := resp.Candidates[0].Content.toMessages(RoleAssistant)
		if err != nil {
			return Trace{}, fmt.Errorf("response: candidates[0]: %w", err)
		}
		t.Messages = append(t.Messages, out...)
		if resp.ModelVersion != "" {
			model = resp.ModelVersion
		}
		if ex.id == "" {
			ex.id = resp.ResponseID
		}
	}
	if err := finishExchange(&t, ex, model, req.Labels); err != nil {
		return Trace{}, err
	}
	return t, nil
}

// mergeGeminiChunks joins a streamed generateContent response: the parts
// of every chunk's first candidate in order, adjacent text parts joined.
func mergeGeminiChunks(chunks []json.RawMessage) ([]byte, error) {
	var parts []json.RawMessage
	var last struct {
		ResponseID   string `json:"responseId"`
		ModelVersion string `json:"modelVersion"`
	}
	var text strings.Builder
	flushText := func() {
		if text.Len() > 0 {
			b, _ := json.Marshal(map[string]string{"text": text.String()})
			parts = append(parts, b)
			text.Reset()
		}
	}
	for _, c := range chunks {
		var chunk struct {
			ResponseID   string `json:"responseId"`
			ModelVersion string `json:"modelVersion"`
			Candidates   []struct {
				Content struct {
					Parts []json.RawMessage `json:"parts"`
				} `json:"content"`
			} `json:"candidates"`
		}
		if err := json.Unmarshal(c, &chunk); err != nil {
			return nil, describeJSONError(err)
		}
		if chunk.ResponseID != "" {
			last.ResponseID = chunk.ResponseID
		}
		if chunk.ModelVersion != "" {
			last.ModelVersion = chunk.ModelVersion
		}
		if len(chunk.Candidates) == 0 {
			continue
		}
		for _, p := range chunk.Candidates[0].Content.Parts {
			var probe geminiPart
			if err := json.Unmarshal(p, &probe); err != nil {
				return nil, describeJSONError(err)
			}
			if probe.Text != nil && !probe.Thought && probe.FunctionCall == nil && probe.FunctionResponse == nil {
				text.WriteString(*probe.Text)
				continue
			}
			flushText()
			parts = append(parts, p)
		}
	}
	flushText()
	return json.Marshal(map[string]any{
		"responseId": last.ResponseID, "modelVersion": last.ModelVersion,
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}}},
	})
}
