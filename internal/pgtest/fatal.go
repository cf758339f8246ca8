package pgtest

import (
	"bufio"
	"encoding/binary"
	"io"
	"net"
	"sync/atomic"
	"testing"
)

// FatalAtCommit puts a proxy in front of server (host:port) that, once
// armed, at the first CommandComplete "COMMIT" from the server sends what a
// backend terminated by a fast shutdown sends (an ErrorResponse, FATAL
// 57P01) after the commit's answer (after) or instead of it (the commit
// made, its answer lost), drops the rest and closes both sides. It returns
// the proxy's address and its switches: armed to arm it, fired once it has
// acted.
func FatalAtCommit(t testing.TB, server string, after bool) (addr string, armed, fired *atomic.Bool) {
	t.Helper()
	armed, fired = new(atomic.Bool), new(atomic.Bool)
	ln := Forward(t, server, func(c, s net.Conn) {
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		defer c.Close()
		defer s.Close()
		r := bufio.NewReader(s)
		for {
			// Every message from the server: a type byte, then a length
			// that counts itself.
			head := make([]byte, 5)
			if _, err := io.ReadFull(r, head); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(head[1:])-4)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			commit := head[0] == 'C' && string(body) == "COMMIT\x00" && armed.Load() && fired.CompareAndSwap(false, true)
			if !commit || after {
				if _, err := c.Write(append(head, body...)); err != nil {
					return
				}
			}
			if commit {
				fields := "SFATAL\x00VFATAL\x00C57P01\x00Mterminating connection due to administrator command\x00\x00"
				msg := binary.BigEndian.AppendUint32([]byte{'E'}, uint32(4+len(fields)))
				_, _ = c.Write(append(msg, fields...))
				return
			}
		}
	})
	return ln.Addr().String(), armed, fired
}
