// Package trace holds goldtrace's canonical trace model (Trace, Message, Call,
// Tool), the decision points (Items) extracted from it, and one importer per
// supported log format.
package trace
