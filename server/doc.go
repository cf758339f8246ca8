// Package server is goldtrace serve: team mode over SSH. A client's public
// key is its identity; a session with a terminal opens the key's user's home
// screen (a reviewer's label queue, a lead's dashboard) and a session with a
// command runs that goldtrace command as the key's user. The server alone
// opens the database; reviewers run nothing but ssh.
package server
