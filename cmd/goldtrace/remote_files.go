package main

import (
	"fmt"
	"os"
)

// opensFile says whether an operand that may name a file or a stored
// dataset version (diff, verify, score --gold) is read as a file: when it
// is not NAME@vN, or a file of that name exists. Over SSH never: the
// server's files are not the client's, and whether one exists is not
// something a client may learn.
func (a *CLI) opensFile(arg string, isRef bool) bool {
	if a.remote {
		return false
	}
	_, err := os.Stat(arg)
	return err == nil || !isRef
}

// refOnly is the error for an operand taken as a stored version that is
// not a valid one (refErr from dataset.ParseRef).
func (a *CLI) refOnly(arg string, isRef bool, refErr error) error {
	if !isRef {
		return fmt.Errorf("%q: over SSH name a dataset version as NAME@vN", arg)
	}
	return refErr
}
