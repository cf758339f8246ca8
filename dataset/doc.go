// Package dataset holds the gold record format, versioned byte-reproducible
// exports with their manifest, diffs between versions, and verification.
package dataset
