package review

import (
	"encoding/json"
	"time"

	"github.com/goldtrace/goldtrace/gold"
)

// Decisions a label may carry.
const (
	DecisionCall   = "call"
	DecisionNoCall = "no_call"
)

// LabelCall is one call a reviewer says the model should have made.
type LabelCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// Label is one reviewer's submitted answer for one item (docs/formats.md, "Labels").
type Label struct {
	Item         string      `json:"item"`
	Reviewer     string      `json:"reviewer"`
	Decision     string      `json:"decision"`
	Calls        []LabelCall `json:"calls"`
	Rationale    string      `json:"rationale"`
	GuideVersion string      `json:"guide_version"`
	Seconds      int         `json:"seconds"`
	SawObserved  bool        `json:"saw_observed"`
	SubmittedAt  time.Time   `json:"submitted_at"`
}

// Gold statuses.
const (
	GoldAgreed      = "agreed"
	GoldAdjudicated = "adjudicated"
)

// Gold is the settled answer for an item: from agreeing labels or from a
// lead's adjudication.
type Gold struct {
	Item         string                `json:"item"`
	Status       string                `json:"status"`
	Decision     string                `json:"decision"`
	Calls        []gold.ExpectedCall   `json:"calls"`
	Acceptable   [][]gold.ExpectedCall `json:"acceptable"`
	Rationale    string                `json:"rationale"`
	Reviewers    []string              `json:"reviewers"`
	Adjudicator  string                `json:"adjudicator,omitempty"`
	GuideVersion string                `json:"guide_version"`
	Reason       string                `json:"reason,omitempty"`
	UpdatedAt    time.Time             `json:"updated_at"`
}
