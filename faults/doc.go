// Package faults is goldtrace's fault suite: its tests run the real binary
// against real database files and break things on purpose — kill -9 at
// random points, a write lock held too long, many writers at once, corrupt
// pages, a read-only file, a full disk — and assert that nothing a user was
// told is saved is lost, that `goldtrace check` passes afterwards, and that
// no raw SQLite error reaches the user. The package holds no code of its own.
package faults
