package synth

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/goldtrace/goldtrace/internal/jsonlex"
)

// kv is one argument or result field. Values are string, int, float64, bool,
// obj (a nested object) or []obj (an array of objects).
type kv struct {
	k string
	v any
}

// obj is a JSON object as a list of fields; it is encoded with sorted keys.
type obj []kv

// get returns the value of key k, or nil.
func (o obj) get(k string) any {
	for _, f := range o {
		if f.k == k {
			return f.v
		}
	}
	return nil
}

// without returns a copy of o without key k.
func (o obj) without(k string) obj {
	out := make(obj, 0, len(o))
	for _, f := range o {
		if f.k != k {
			out = append(out, f)
		}
	}
	return out
}

// with returns a copy of o with key k set to v (replaced or appended).
func (o obj) with(k string, v any) obj {
	out := make(obj, 0, len(o)+1)
	found := false
	for _, f := range o {
		if f.k == k {
			f.v = v
			found = true
		}
		out = append(out, f)
	}
	if !found {
		out = append(out, kv{k, v})
	}
	return out
}

// json encodes o as canonical JSON (sorted keys, compact, no HTML escaping):
// the same bytes trace.Canonical would give.
func (o obj) json() json.RawMessage {
	return appendObj(make([]byte, 0, 64), o)
}

func appendObj(dst []byte, o obj) []byte {
	sorted := o
	if !slices.IsSortedFunc(o, compareKV) {
		sorted = slices.Clone(o)
		slices.SortFunc(sorted, compareKV)
	}
	dst = append(dst, '{')
	for i, f := range sorted {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonlex.AppendString(dst, f.k, false)
		dst = append(dst, ':')
		dst = appendValue(dst, f.v)
	}
	return append(dst, '}')
}

func compareKV(a, b kv) int { return strings.Compare(a.k, b.k) }

func appendValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return jsonlex.AppendString(dst, x, false)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case float64:
		return strconv.AppendFloat(dst, x, 'f', -1, 64)
	case bool:
		return strconv.AppendBool(dst, x)
	case obj:
		return appendObj(dst, x)
	case []obj:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendObj(dst, e)
		}
		return append(dst, ']')
	case []string:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonlex.AppendString(dst, e, false)
		}
		return append(dst, ']')
	case nil:
		return append(dst, "null"...)
	}
	// Only the types above are ever built in this package.
	return append(dst, "null"...)
}
