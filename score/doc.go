// Package score grades predicted tool calls against gold expected calls:
// optimal call pairing (Hungarian assignment, never greedy), the best of the
// acceptable call lists, argument rules, one error kind per failing item,
// aggregate metrics per tool and per cohort, the confusion matrix, CI gates
// and baselines, and the text, JSON, JUnit and Markdown report writers.
//
// REPORT.md defines every metric, the error-kind precedence, the BFCL
// profile and the report's JSON keys.
package score
