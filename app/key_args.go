package app

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// The KEY operands of goldtrace users (add --key, key add, key remove): an
// authorized_keys line, a .pub file, a fingerprint, or - for a key on
// stdin (over SSH: ssh HOST -- users key add bob - < bob.pub). Over SSH
// (remote) an operand is never a file of the server's.

// KeyArgument reads one KEY operand.
func KeyArgument(arg string, stdin io.Reader, remote bool) (UserKey, error) {
	if arg != "-" && remote {
		return ParseKeyText([]byte(arg), "the key argument") // never a file of the server's
	}
	if arg != "-" {
		return ParseKey(arg)
	}
	b, err := io.ReadAll(io.LimitReader(stdin, 64<<10))
	if err != nil {
		return UserKey{}, fmt.Errorf("read the key from stdin: %w", err)
	}
	return ParseKeyText(b, "the key on stdin")
}

// KeyArguments reads every --key operand, stopping at the first bad one;
// a key given twice is kept once.
func KeyArguments(args []string, stdin io.Reader, remote bool) ([]UserKey, error) {
	var keys []UserKey
	seen := map[string]bool{}
	for _, arg := range args {
		k, err := KeyArgument(arg, stdin, remote)
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

// KeyArgumentRef is the fingerprint a KEY operand of users key remove
// names (KeyRef; over SSH the key is the argument's text).
func KeyArgumentRef(arg string, stdin io.Reader, remote bool) (string, error) {
	if remote && !strings.HasPrefix(arg, "SHA256:") {
		k, err := KeyArgument(arg, stdin, remote)
		return k.Fingerprint, err
	}
	return KeyRef(arg)
}

// KeyError drops the sentinel's own words (": conflict", ": not found")
// from the end of an error of the users' keys: the sentence before them
// says what.
func KeyError(err error) error {
	for _, sentinel := range []error{ErrConflict, ErrNotFound} {
		if msg := err.Error(); errors.Is(err, sentinel) && strings.HasSuffix(msg, ": "+sentinel.Error()) {
			return errors.New(strings.TrimSuffix(msg, ": "+sentinel.Error()))
		}
	}
	return err
}
