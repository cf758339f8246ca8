package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// Verdict is a judge's decision on one item, as cached and reported.
type Verdict struct {
	// Score is 1, 0.5 or 0 (args), 1 or 0 (selection: correct or
	// incorrect), or the share of yes (quality).
	Score float64 `json:"score"`
	// Reason is the judge's reason; for quality, an explanation from the
	// majority side.
	Reason string `json:"reason"`
	// Label is the selection judge's label.
	Label string `json:"label,omitempty"`
	// Yes and Samples count the quality judge's answers.
	Yes     int `json:"yes,omitempty"`
	Samples int `json:"samples,omitempty"`
}

// errMalformed marks a judge answer that does not follow its template's
// answer format.
var errMalformed = errors.New("malformed judge output")

// parseVerdict reads a judge's answers (one per sample).
func parseVerdict(kind Kind, choices []Choice) (Verdict, error) {
	switch kind {
	case KindArgs:
		var a struct {
			Score  *float64 `json:"score"`
			Reason string   `json:"reason"`
		}
		if err := decodeAnswer(choices[0].Content, &a); err != nil {
			return Verdict{}, err
		}
		if a.Score == nil {
			return Verdict{}, fmt.Errorf("%w: no score in %s", errMalformed, clip(choices[0].Content, 60))
		}
		s := *a.Score
		if s != 0 && s != 0.5 && s != 1 {
			return Verdict{}, fmt.Errorf("%w: score %g is not 1, 0.5 or 0", errMalformed, s)
		}
		return Verdict{Score: s, Reason: a.Reason}, nil
	case KindSelection:
		var a struct {
			Label       string `json:"label"`
			Explanation string `json:"explanation"`
		}
		if err := decodeAnswer(choices[0].Content, &a); err != nil {
			return Verdict{}, err
		}
		switch strings.ToLower(strings.TrimSpace(a.Label)) {
		case "correct":
			return Verdict{Score: 1, Label: "correct", Reason: a.Explanation}, nil
		case "incorrect":
			return Verdict{Score: 0, Label: "incorrect", Reason: a.Explanation}, nil
		}
		return Verdict{}, fmt.Errorf("%w: label %q is not correct or incorrect", errMalformed, a.Label)
	case KindQuality:
		var v Verdict
		var yesWhy, noWhy string
		for _, ch := range choices {
			var a struct {
				Answer      string `json:"answer"`
				Explanation string `json:"explanation"`
			}
			if err := decodeAnswer(ch.Content, &a); err != nil {
				return Verdict{}, err
			}
			switch strings.ToLower(strings.TrimSpace(a.Answer)) {
			case "yes":
				v.Yes++
				if yesWhy == "" {
					yesWhy = a.Explanation
				}
			case "no":
				if noWhy == "" {
					noWhy = a.Explanation
				}
			default:
				return Verdict{}, fmt.Errorf("%w: answer %q is not yes or no", errMalformed, a.Answer)
			}
			v.Samples++
		}
		v.Score = math.Round(float64(v.Yes)/float64(v.Samples)*1e6) / 1e6
		// the explanation shown agrees with the majority (yes on a tie)
		v.Reason = noWhy
		if 2*v.Yes >= v.Samples {
			v.Reason = yesWhy
		}
		return v, nil
	}
	return Verdict{}, fmt.Errorf("unknown judge %q", kind)
}

// decodeAnswer decodes a JSON object answer; a Markdown code fence around
// it is tolerated (small self-hosted models add one despite the JSON mode).
func decodeAnswer(content string, v any) error {
	s := strings.TrimSpace(content)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		rest = strings.TrimPrefix(rest, "json")
		if body, _, ok := strings.Cut(rest, "```"); ok {
			s = strings.TrimSpace(body)
		}
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	if err := dec.Decode(v); err != nil || !strings.HasPrefix(s, "{") || dec.More() {
		return fmt.Errorf("%w: not a JSON object: %s", errMalformed, clip(content, 60))
	}
	return nil
}
