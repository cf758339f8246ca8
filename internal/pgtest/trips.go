package pgtest

import (
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// Trips counts the round trips clients make to a PostgreSQL server: a
// proxy on 127.0.0.1 in front of it, which counts each message a client
// then waits for the server's answer to (a simple query, or the Sync
// ending an extended-protocol exchange, however many statements that
// exchange pipelined). pgx's ping of an idle connection ("-- ping") is
// not counted.
type Trips struct {
	n atomic.Int64
}

// CountTrips starts a counting proxy in front of the server dsn names
// (stopped when the test ends) and returns the DSN that goes through it.
func CountTrips(t testing.TB, dsn string) (string, *Trips) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	tr := &Trips{}
	ln := Forward(t, u.Host, func(c, s net.Conn) {
		go func() { io.Copy(c, s); c.Close() }()
		tr.count(c, s)
		s.Close()
	})
	u.Host = ln.Addr().String()
	return u.String(), tr
}

// N is the number of round trips so far.
func (tr *Trips) N() int64 { return tr.n.Load() }

// count copies a client's messages to the server, counting round trips.
func (tr *Trips) count(c, s net.Conn) {
	// Untyped packets first: SSL or GSS encryption requests (refused
	// by a test server), then the startup message (protocol 3.0).
	for {
		var hdr [8]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(hdr[:4]))-8)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		if _, err := s.Write(append(hdr[:], body...)); err != nil {
			return
		}
		if binary.BigEndian.Uint32(hdr[4:]) == 196608 {
			break
		}
	}
	for {
		var hdr [5]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil {
			return
		}
		body := make([]byte, int(binary.BigEndian.Uint32(hdr[1:]))-4)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		switch hdr[0] {
		case 'S':
			tr.n.Add(1)
		case 'Q':
			if !strings.HasPrefix(string(body), "-- ping") {
				tr.n.Add(1)
			}
		}
		if _, err := s.Write(append(hdr[:], body...)); err != nil {
			return
		}
	}
}
