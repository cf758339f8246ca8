//go:build !unix

package pgtest

// processGone cannot tell here: nothing is pruned.
func processGone(int) bool { return false }
