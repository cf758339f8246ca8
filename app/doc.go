// Package app is what a user can do with a goldtrace project: one method per
// action, each taking the Actor it runs as. It owns the action × role table
// (authz.go) — authorization is decided here and nowhere else — and
// orchestrates the store and the domain packages. The CLI, the TUI and the
// SSH server all reach the store through it.
package app
