//go:build !unix

package dataset

// lockExclusive is not available here: stale temporary files stay.
func lockExclusive(path string) (release func(), ok bool) { return nil, false }
