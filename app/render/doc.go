// Package render writes app's results as plain text for a terminal or an
// SSH client: status, items, sample plans, diffs, judge calibrations, the
// demo's summary, and progress meters. goldtrace's commands print through
// it; it decides nothing (app did), it only lays the results out.
package render
