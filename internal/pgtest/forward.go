package pgtest

import (
	"net"
	"testing"
)

// Forward puts a proxy of a test's own in front of a server (host:port):
// it listens on 127.0.0.1 and, for each connection it accepts, dials the
// server and hands both connections to serve, on a goroutine of its own.
// It stops when the test ends, or when the listener it returns is closed
// (the connections already made are serve's to close).
func Forward(t testing.TB, server string, serve func(client, server net.Conn)) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", server)
			if err != nil {
				c.Close()
				continue
			}
			go serve(c, s)
		}
	}()
	return ln
}
