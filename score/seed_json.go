package score

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// JSON of the seed numbers: each sits at the top level of its item or
// metrics object, under its seed name, null when not computable.

type metricsJSON Metrics // Metrics without its methods

// MarshalJSON writes the metrics with the seed rates as top-level keys.
func (m Metrics) MarshalJSON() ([]byte, error) {
	b, err := marshalNoEscape(metricsJSON(m))
	if err != nil || len(m.Seed) == 0 {
		return b, err
	}
	b = b[:len(b)-1] // the closing brace
	for _, sr := range m.Seed {
		b = appendSeedKey(b, sr.Name, sr.Value)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the metrics and any seed rates (a saved report read
// back as a baseline).
func (m *Metrics) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, (*metricsJSON)(m)); err != nil {
		return err
	}
	var raw map[string]*float64
	_ = json.Unmarshal(data, &raw) // the other keys are not numbers; errors ignored
	m.Seed = nil
	for _, name := range append(seedNames[:len(seedNames):len(seedNames)], SeedInvalidToolRate) {
		if v, ok := raw[name]; ok {
			m.Seed = append(m.Seed, SeedRate{Name: name, Value: v})
		}
	}
	return nil
}

// MarshalJSON writes the group's name, then its metrics.
func (g Group) MarshalJSON() ([]byte, error) {
	mb, err := g.Metrics.MarshalJSON()
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"name":`), jsonString(g.Name)...)
	if len(mb) > 2 {
		b = append(b, ',')
	}
	return append(b, mb[1:]...), nil
}

// UnmarshalJSON reads a group written by MarshalJSON.
func (g *Group) UnmarshalJSON(data []byte) error {
	var n struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(data, &n); err != nil {
		return err
	}
	g.Name = n.Name
	return g.Metrics.UnmarshalJSON(data)
}

type itemJSON ItemResult // ItemResult without its methods

// MarshalJSON writes the item with its seed numbers as top-level keys.
func (r ItemResult) MarshalJSON() ([]byte, error) {
	b, err := marshalNoEscape(itemJSON(r))
	if err != nil {
		return nil, err
	}
	return r.appendSeed(b[:len(b)-1]), nil
}

// appendSeed appends the seed keys of the item's profile and the closing
// brace to b, an item object without it.
func (r *ItemResult) appendSeed(b []byte) []byte {
	lo, hi := seedRange(int(r.seed))
	for i := lo; i < hi; i++ {
		b = appendSeedKey(b, seedNames[i], orNull(r.Seed[i]))
	}
	return append(b, '}')
}

func appendSeedKey(b []byte, name string, v *float64) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendRate(b, v)
}

// appendRate writes a rate as encoding/json does, or null.
func appendRate(b []byte, v *float64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	f, _ := json.Marshal(*v)
	return append(b, f...)
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

func jsonString(s string) []byte {
	b, err := marshalNoEscape(s)
	if err != nil {
		return []byte(strconv.Quote(s))
	}
	return b
}
