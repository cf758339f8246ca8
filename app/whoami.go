package app

import "context"

// Whoami is the database and the identity in effect, and where each
// comes from (goldtrace whoami; --json).
type Whoami struct {
	Database     string   `json:"database"`      // "": the server's, not shown to this SSH user
	DatabaseFrom string   `json:"database_from"` // --db, GOLDTRACE_DB, a config file, default, the server
	Exists       bool     `json:"exists"`
	As           string   `json:"as"`      // "" when no identity is in effect
	AsFrom       string   `json:"as_from"` // --as, a config file, an SSH key, or ""
	Role         string   `json:"role,omitempty"`
	Mode         string   `json:"mode"` // local (trusted) or ssh
	ConfigFiles  []string `json:"config_files"`
}

// WhoamiRequest is what the front end knows before the database is asked:
// the database and where it came from, the config files read, --as and
// where it came from.
type WhoamiRequest struct {
	DB, DBFrom  string
	Password    string // a PostgreSQL DSN's, taken out of DB
	ConfigFiles []string
	As, AsFrom  string
	// Backend opens the project (only when it exists and As is set, to
	// look up the role).
	Backend func(ctx context.Context) (*App, Actor, error)
}

// WhoamiOf answers whoami: over SSH (an actor in ctx) the key's user;
// locally the database, --as and, when both exist, the user's role.
func WhoamiOf(ctx context.Context, req WhoamiRequest) (Whoami, error) {
	res := Whoami{Database: req.DB, DatabaseFrom: req.DBFrom, Mode: "local (trusted: whoever can write the database file can act as any user)",
		ConfigFiles: req.ConfigFiles, As: req.As, AsFrom: req.AsFrom}
	if res.ConfigFiles == nil {
		res.ConfigFiles = []string{}
	}
	if who, ok := ActorFrom(ctx); ok {
		res.Exists, res.As, res.AsFrom, res.Role, res.Mode = true, who.Name, string(who.Source), string(who.Role), "ssh"
		if !who.SeesDatabase() {
			res.Database = "" // where it lives is a lead's to know (SeesDatabase)
		}
		return res, nil
	}
	exists, err := ProjectExists(ctx, req.DB, req.Password)
	if err != nil || !exists || res.As == "" {
		res.Exists = exists
		return res, err
	}
	res.Exists = true
	be, who, err := req.Backend(ctx)
	if err != nil {
		return res, err
	}
	users, err := be.Users(ctx, who)
	if err != nil {
		return res, err
	}
	res.Role = "(no such user in this database)"
	for _, u := range users {
		if u.Name == res.As {
			res.Role = u.Role
		}
	}
	return res, nil
}
