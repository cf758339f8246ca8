package server

import (
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/app"
)

// TestWithheldLogsOnceAMinute: what a reviewer's screen is told again and
// again while the database is away (a retry every two seconds) is one log
// line per key and error, with the error as it was; another error, or
// another key, is a line of its own.
func TestWithheldLogsOnceAMinute(t *testing.T) {
	log := &logBuffer{}
	s := &Server{log: slog.New(slog.NewTextHandler(log, nil))}
	alice := app.Actor{Name: "alice", Role: app.RoleReviewer, Source: app.SourceSSH, KeyFingerprint: "SHA256:a"}
	bob := app.Actor{Name: "bob", Role: app.RoleReviewer, Source: app.SourceSSH, KeyFingerprint: "SHA256:b"}
	down := errors.New("database postgres://db.internal:5433/labels: no PostgreSQL server answers at db.internal port 5433 (connection refused)")
	for range 30 {
		s.Withheld(alice, down)
	}
	s.Withheld(bob, down)
	s.Withheld(alice, errors.New("database /srv/gt.db is busy: another process held the write lock too long; try again"))
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "user=alice") || !strings.Contains(lines[0], "db.internal port 5433") ||
		!strings.Contains(lines[1], "user=bob") || !strings.Contains(lines[2], "/srv/gt.db is busy") {
		t.Errorf("the log:\n%s\nwant alice's unavailable once, bob's, then alice's busy", log)
	}
}
