package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/goldtrace/goldtrace/app"
)

func newUsersKeyCmd(a *CLI) *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:   "key",
		Short: "Add or remove a user's SSH keys (who they are under goldtrace serve)",
	}
	add := &cobra.Command{
		Use:   "add NAME KEY",
		Short: "Give NAME another SSH key: an authorized_keys line, a .pub file, or - to read it from stdin",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			k, err := a.parseKey(args[1])
			if err != nil {
				return err
			}
			be, who, err := a.Actor(cmd, as)
			if err != nil {
				return err
			}
			if err := be.AddUserKey(cmd.Context(), who, args[0], k); err != nil {
				return fmt.Errorf("add key to %s: %w", args[0], keyError(err))
			}
			fmt.Fprintf(a.Out, "user %s: key %s added\n", args[0], k.Fingerprint)
			return nil
		},
	}
	remove := &cobra.Command{
		Use:   "remove NAME KEY",
		Short: "Take a key from NAME: its fingerprint (users list), its line or its .pub file",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			fp, err := a.keyRef(args[1])
			if err != nil {
				return err
			}
			be, who, err := a.Actor(cmd, as)
			if err != nil {
				return err
			}
			if err := be.RemoveUserKey(cmd.Context(), who, args[0], fp); err != nil {
				return fmt.Errorf("remove key from %s: %w", args[0], keyError(err))
			}
			fmt.Fprintf(a.Out, "user %s: key %s removed\n", args[0], fp)
			return nil
		},
	}
	cmd.PersistentFlags().StringVar(&as, "as", "", "the lead changing the keys")
	cmd.AddCommand(add, remove)
	return cmd
}

func newUsersRemoveCmd(a *CLI) *cobra.Command {
	var as string
	cmd := &cobra.Command{
		Use:   "remove NAME",
		Short: "Take a user out: their SSH keys stop working at once",
		Long: `remove deletes NAME's SSH keys, so goldtrace serve refuses them from now on, and
deletes the user. A user whose name is on assignments, labels or adjudications
stays listed (that work names them) but has no keys.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			be, who, err := a.Actor(cmd, as)
			if err != nil {
				return err
			}
			kept, err := be.RemoveUser(cmd.Context(), who, args[0])
			if err != nil {
				return fmt.Errorf("remove user %s: %w", args[0], keyError(err))
			}
			if kept {
				fmt.Fprintf(a.Out, "user %s: keys removed; kept in the list because their work names them\n", args[0])
			} else {
				fmt.Fprintf(a.Out, "user %s removed\n", args[0])
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "the lead removing the user")
	return cmd
}

// parseKey reads a KEY operand: a line, a .pub file, or - for a key on
// stdin (over SSH: ssh HOST -- users key add bob - < bob.pub).
func (a *CLI) parseKey(arg string) (app.UserKey, error) {
	if arg != "-" && a.remote {
		return app.ParseKeyText([]byte(arg), "the key argument") // never a file of the server's
	}
	if arg != "-" {
		return app.ParseKey(arg)
	}
	b, err := io.ReadAll(io.LimitReader(a.In, 64<<10))
	if err != nil {
		return app.UserKey{}, fmt.Errorf("read the key from stdin: %w", err)
	}
	return app.ParseKeyText(b, "the key on stdin")
}

// parseKeys parses every --key argument, stopping at the first bad one.
func (a *CLI) parseKeys(args []string) ([]app.UserKey, error) {
	var keys []app.UserKey
	seen := map[string]bool{}
	for _, arg := range args {
		k, err := a.parseKey(arg)
		if err != nil {
			return nil, err
		}
		if !seen[k.Fingerprint] {
			seen[k.Fingerprint] = true
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// keyError drops the sentinel's own words (": conflict", ": not found")
// from the end of a store error: the sentence before them says what.
func keyError(err error) error {
	for _, sentinel := range []error{app.ErrConflict, app.ErrNotFound} {
		if msg := err.Error(); errors.Is(err, sentinel) && strings.HasSuffix(msg, ": "+sentinel.Error()) {
			return errors.New(strings.TrimSuffix(msg, ": "+sentinel.Error()))
		}
	}
	return err
}

// keyColumn is the KEYS cell of users list: the fingerprints, or "-".
func keyColumn(keys []app.UserKey) string {
	if len(keys) == 0 {
		return "-"
	}
	fps := make([]string, len(keys))
	for i, k := range keys {
		fps[i] = k.Fingerprint
	}
	return strings.Join(fps, " ")
}

// writeUsersJSON prints the users, each with their keys ([] when none).
func writeUsersJSON(w io.Writer, users []app.User, keys map[string][]app.UserKey) error {
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
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// keyRef is app.KeyRef; over SSH the key is the argument's text, never a
// file of the server's.
func (a *CLI) keyRef(arg string) (string, error) {
	if a.remote && !strings.HasPrefix(arg, "SHA256:") {
		k, err := a.parseKey(arg)
		return k.Fingerprint, err
	}
	return app.KeyRef(arg)
}
