package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
	"github.com/goldtrace/goldtrace/internal/fserr"
)

// A project config saves reviewers typing --db and --as: goldtrace.toml in
// the working directory, else $XDG_CONFIG_HOME/goldtrace/config.toml
// (~/.config/goldtrace/config.toml when XDG_CONFIG_HOME is unset). It holds
// string keys only:
//
//	db = "support.db"   # the database (relative paths: to the working directory)
//	as = "alice"        # who you are, for commands that take --as
//
// Precedence: a flag, then GOLDTRACE_DB (for db), then the working
// directory's goldtrace.toml, then the user's config file, then
// ./goldtrace.db. Over SSH no config is read: identity comes from the key.

// config is what a config file sets, and where each value came from.
type config struct {
	db, as     string
	dbFrom     string   // the config file that set db ("default" when none did)
	asFrom     string   // the config file that set as, or ""
	userFile   string   // the user's config file path (whether or not it exists)
	loadedFrom []string // the config files read
}

// configKeys are the keys a config file may set.
var configKeys = map[string]bool{"db": true, "as": true}

// userConfigPath is $XDG_CONFIG_HOME/goldtrace/config.toml, or under
// ~/.config when XDG_CONFIG_HOME is unset.
func userConfigPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "goldtrace", "config.toml")
}

// loadConfig reads the user's config file, then ./goldtrace.toml over it.
func loadConfig() (config, error) {
	c := config{dbFrom: "default", userFile: userConfigPath()}
	for _, path := range []string{c.userFile, "goldtrace.toml"} {
		if path == "" {
			continue
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return c, fmt.Errorf("config %s: %w", path, fserr.Bare(err))
		}
		values, err := parseConfig(path, b)
		if err != nil {
			return c, err
		}
		c.loadedFrom = append(c.loadedFrom, path)
		if v, ok := values["db"]; ok {
			c.db, c.dbFrom = v, path
		}
		if v, ok := values["as"]; ok {
			c.as, c.asFrom = v, path
		}
	}
	return c, nil
}

// parseConfig reads the TOML subset a goldtrace config uses: comments,
// blank lines and `key = "string"` (basic or literal strings) for the
// known keys. Anything else is an error naming the file, the line and the
// key.
func parseConfig(path string, b []byte) (map[string]string, error) {
	values := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") {
			return nil, fmt.Errorf("%s:%d: table %s: goldtrace's config has no tables (keys: db, as)", path, n, line)
		}
		key, raw, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return nil, fmt.Errorf("%s:%d: want key = \"value\", got %q", path, n, line)
		}
		if !configKeys[key] {
			return nil, fmt.Errorf("%s:%d: unknown key %q (a config sets db and as)", path, n, key)
		}
		if _, dup := values[key]; dup {
			return nil, fmt.Errorf("%s:%d: key %q is set twice", path, n, key)
		}
		v, err := tomlString(strings.TrimSpace(raw))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: key %q: %v", path, n, key, err)
		}
		if v == "" {
			return nil, fmt.Errorf("%s:%d: key %q is empty", path, n, key)
		}
		values[key] = v
	}
	return values, sc.Err()
}

// tomlString reads a TOML basic ("…") or literal ('…') string, followed
// by nothing but an optional comment.
func tomlString(s string) (string, error) {
	if s == "" {
		return "", errors.New("no value (want a quoted string)")
	}
	var v, rest string
	switch s[0] {
	case '"':
		end := 1
		for end < len(s) && s[end] != '"' {
			if s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(s) {
			return "", errors.New("unterminated string")
		}
		u, err := strconv.Unquote(s[:end+1])
		if err != nil {
			return "", fmt.Errorf("bad string %s", s[:end+1])
		}
		v, rest = u, s[end+1:]
	case '\'':
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", errors.New("unterminated string")
		}
		v, rest = s[1:end+1], s[end+2:]
	default:
		return "", fmt.Errorf("value %s is not a string (quote it)", s)
	}
	if rest = strings.TrimSpace(rest); rest != "" && !strings.HasPrefix(rest, "#") {
		return "", fmt.Errorf("unexpected %q after the value", rest)
	}
	return v, nil
}

// createsDatabase are the commands that may create a missing database:
// everything else refuses, so a forgotten GOLDTRACE_DB never forks a
// project into a new empty file.
var createsDatabase = map[string]bool{"import": true, "demo": true, "users add": true, "init": true,
	"judge calibrate": true, "predict": true} // the judge keeps its verdict cache in the database (score --judge too)

// onPostgres are the commands that work on a PostgreSQL project (and are
// tested there); every other command refuses one in one line, exit 2,
// before touching it. Commands that use no database are listed too.
var onPostgres = map[string]bool{
	"init": true, "whoami": true, "help": true, "man": true,
	"demo":      true, // makes its own SQLite project (or writes traces); never opens --db
	"users add": true, "users list": true, "users remove": true, "users key add": true, "users key remove": true,
	"import": true, "sample": true, "status": true, "batches": true, "traces": true, "datasets": true,
	"settings": true, "settings set": true, "check": true, "backup": true, "guide": true, "guide set": true, "guide show": true, "guide log": true,
	"copy":   true, // opens --from and --to itself, either engine
	"export": true, "datasets get": true, "diff": true, "verify": true, "drift": true, "score": true, "predict": true,
	"judge": true, "judge prompt": true, "judge calibrate": true,
}

// notOnPostgres are flags of those commands not yet tested there (they
// read exported datasets or prediction runs, which need export).
var notOnPostgres = map[string][]string{"sample": {"stale", "runs"}}

// applyConfig is the root's pre-run: it settles which database the command
// uses (--db, GOLDTRACE_DB, a config file, ./goldtrace.db) and fills --as
// from a config file when the command takes it and it was not given. Over
// SSH (an actor in the context) nothing is read: the server chose the
// database and the key is the identity.
func (a *CLI) applyConfig(cmd *cobra.Command) error {
	path := strings.TrimSpace(strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()))
	a.mayCreate = createsDatabase[path]
	if f := cmd.Flags().Lookup("judge"); path == "score" && f != nil && f.Changed {
		a.mayCreate = true // the judge's verdict cache lives in the database
	}
	if _, ok := app.ActorFrom(cmd.Context()); ok {
		a.dbFrom = "the server"
		return nil
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	a.config = cfg
	dbFlag := cmd.Root().PersistentFlags().Lookup("db")
	switch {
	case dbFlag != nil && dbFlag.Changed:
		a.dbFrom = "--db"
	case os.Getenv("GOLDTRACE_DB") != "":
		a.DBPath, a.dbFrom = os.Getenv("GOLDTRACE_DB"), "GOLDTRACE_DB"
	case cfg.db != "":
		a.DBPath, a.dbFrom = cfg.db, cfg.dbFrom
	default:
		a.dbFrom = "default"
	}
	if app.IsPostgres(a.DBPath) {
		a.DBPath, a.dbPassword = app.RedactDSN(a.DBPath)
		if !onPostgres[path] && !strings.HasPrefix(path, "completion") && path != "" {
			return &exitError{code: 2, err: fmt.Errorf("goldtrace %s is not available on PostgreSQL yet (database %s); it works on a SQLite project", path, a.DBPath)}
		}
		for _, name := range notOnPostgres[path] {
			if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
				return &exitError{code: 2, err: fmt.Errorf("goldtrace %s --%s is not available on PostgreSQL yet (database %s); it works on a SQLite project", path, name, a.DBPath)}
			}
		}
	}
	// users add is how the first users come to be: its --as is never a
	// default, or adding the configured user would need that user.
	if f := cmd.Flags().Lookup("as"); f != nil && !f.Changed && cfg.as != "" && path != "users add" {
		// Set without marking the flag changed: it is a default, not a
		// flag the user typed.
		if err := f.Value.Set(cfg.as); err != nil {
			return fmt.Errorf("%s: as: %w", cfg.asFrom, err)
		}
	}
	return nil
}
