package app

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

// Config is what a config file sets, and where each value came from.
type Config struct {
	DB, As     string
	DBFrom     string   // the config file that set db ("default" when none did)
	AsFrom     string   // the config file that set as, or ""
	UserFile   string   // the user's config file path (whether or not it exists)
	LoadedFrom []string // the config files read
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

// LoadConfig reads the user's config file, then ./goldtrace.toml over it.
func LoadConfig() (Config, error) {
	c := Config{DBFrom: "default", UserFile: userConfigPath()}
	for _, path := range []string{c.UserFile, "goldtrace.toml"} {
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
		values, err := ParseConfig(path, b)
		if err != nil {
			return c, err
		}
		c.LoadedFrom = append(c.LoadedFrom, path)
		if v, ok := values["db"]; ok {
			c.DB, c.DBFrom = v, path
		}
		if v, ok := values["as"]; ok {
			c.As, c.AsFrom = v, path
		}
	}
	return c, nil
}

// ParseConfig reads the TOML subset a goldtrace config uses: comments,
// blank lines and `key = "string"` (basic or literal strings) for the
// known keys. Anything else is an error naming the file, the line and the
// key.
func ParseConfig(path string, b []byte) (map[string]string, error) {
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
