// Package score grades predicted tool calls against gold expected calls:
// optimal call pairing, per-item metrics and error kinds, aggregates, the
// confusion matrix, cohorts, gates and report writers.
package score
