// Package gold is the gold answer's one home: expected calls and their
// argument rules (with JSON Pointer keys for nested values), the value tree
// and the exact equality that agreement and scoring share, and the gold
// record with its one encoder and one reader. Everything that writes or
// reads gold (review, dataset, store, score, judge) uses it; it imports
// only trace.
package gold
