package render

import (
	"io"
	"strings"

	"github.com/goldtrace/goldtrace/app"
)

// KeyColumn is the KEYS cell of users list: the fingerprints, or "-".
func KeyColumn(keys []app.UserKey) string {
	if len(keys) == 0 {
		return "-"
	}
	fps := make([]string, len(keys))
	for i, k := range keys {
		fps[i] = k.Fingerprint
	}
	return strings.Join(fps, " ")
}

// UsersJSON prints the users, each with their keys ([] when none).
func UsersJSON(w io.Writer, users []app.User, keys map[string][]app.UserKey) error {
	type userJSON struct {
		app.User
		Keys []app.UserKey `json:"keys"`
	}
	out := make([]userJSON, 0, len(users))
	for _, u := range users {
		ks := keys[u.Name]
		if ks == nil {
			ks = []app.UserKey{}
		}
		out = append(out, userJSON{User: u, Keys: ks})
	}
	return IndentJSON(w, out)
}
