// Package tui holds goldtrace's terminal screens (label, adjudicate,
// dashboard, guide) and the router, shared styles and keys they run under.
package tui
