package dberr

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// rewording is a wrapper whose message is not its cause's text.
type rewording struct{ err error }

func (r rewording) Error() string { return "it failed: " + strings.ToUpper(r.err.Error()) }
func (r rewording) Unwrap() error { return r.err }

// TestWithholdTakesThePlaceOut: whatever wraps a database failure, the
// message Withhold makes names no file, host, port or database, keeps what
// the wrappers said, and still is the failure for errors.Is and As.
func TestWithholdTakesThePlaceOut(t *testing.T) {
	const dsn = "postgres://goldtrace@db.internal:5433/labels?sslmode=disable"
	down := &DBError{Path: dsn, Kind: ErrUnavailable, Err: ErrUnavailable,
		Why: "no PostgreSQL server answers at db.internal port 5433 (connection refused)"}
	busy := &DBError{Path: "/srv/team/gt.db", Op: "write", Kind: ErrBusy, Err: errors.New("database is locked")}
	damaged := &DBError{Path: "/srv/team/gt.db", Kind: ErrDamaged}
	full := &DBError{Path: "/srv/team/gt.db", Kind: ErrDiskFull}
	ro := &DBError{Path: "/srv/team/gt.db", Kind: ErrReadOnly, Why: "stat /srv/team/gt.db: permission denied"}
	for _, tc := range []struct {
		name   string
		err    error
		places []string
		want   string
	}{
		{"wrapped", fmt.Errorf("submit it_1: %w", down), nil,
			"submit it_1: the database is unavailable (down, restarting or out of reach); try again in a minute, and tell your lead if it goes on"},
		{"busy", fmt.Errorf("labels import: %w", busy), nil,
			"labels import: the database is busy (another process held its write lock too long); try again"},
		{"damaged", damaged, nil, "the database is damaged and refuses writes until it is checked; tell your lead"},
		{"full", full, nil, "the database's disk is full; tell your lead, and try again once space is freed"},
		{"read-only", ro, nil, "the database cannot be written at the moment; tell your lead"},
		{"joined", errors.Join(fmt.Errorf("status: %w", down), fmt.Errorf("audit log: %w", busy)), nil,
			"status: the database is unavailable (down, restarting or out of reach); try again in a minute, and tell your lead if it goes on\n" +
				"audit log: the database is busy (another process held its write lock too long); try again"},
		{"reworded", fmt.Errorf("submit: %w", rewording{down}), nil,
			"the database is unavailable (down, restarting or out of reach); try again in a minute, and tell your lead if it goes on"},
		{"a place elsewhere", fmt.Errorf("database %s: PostgreSQL refused a statement", dsn), []string{dsn},
			"the database: PostgreSQL refused a statement"},
		{"a file beside it", fmt.Errorf("read /srv/team/gt.db.recovery-alice.json: %w", down), []string{"/srv/team/gt.db"},
			"read the database.recovery-alice.json: the database is unavailable (down, restarting or out of reach); try again in a minute, and tell your lead if it goes on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Withhold(tc.err, tc.places...)
			if got.Error() != tc.want {
				t.Errorf("Withhold: %q\nwant        %q", got, tc.want)
			}
			for _, place := range []string{"db.internal", "5433", "labels?", "/srv/team", "gt.db", "locked"} {
				if strings.Contains(got.Error(), place) {
					t.Errorf("%q still names %q", got, place)
				}
			}
			var de *DBError
			if !errors.As(got, &de) && tc.name != "a place elsewhere" {
				t.Errorf("errors.As(*DBError) lost in %q", got)
			}
			var w *Withheld
			if !errors.As(got, &w) || w.Detail() != tc.err.Error() {
				t.Errorf("Detail of %q is not the original message %q", got, tc.err)
			}
			if again := Withhold(fmt.Errorf("screen: %w", got)); again.Error() != "screen: "+tc.want {
				t.Errorf("withheld twice: %q", again)
			}
		})
	}
	if !errors.Is(Withhold(fmt.Errorf("x: %w", busy)), ErrBusy) {
		t.Error("a withheld busy failure is not ErrBusy any more (the screens retry on it)")
	}
	plain := errors.New("item it_1 is not yours")
	if got := Withhold(plain, "/srv/team/gt.db"); got != plain {
		t.Errorf("an error with nothing to withhold came back as %#v", got)
	}
	if Withhold(nil) != nil {
		t.Error("Withhold(nil) is not nil")
	}
}
