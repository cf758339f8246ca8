package server

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/goldtrace/goldtrace/app"
)

// watchKeys ends the sessions of keys that no longer belong to a user
// (users key remove, users remove — over SSH, or on the server's shell,
// or by another replica): every RevokeCheck, and at once after a users
// command over SSH. A write that races the removal is refused by the store, which
// checks the key inside the write's own transaction.
func (s *Server) watchKeys() {
	tick := time.NewTicker(s.limits.RevokeCheck)
	defer tick.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-tick.C:
		case <-s.recheck:
		}
		s.endRevoked()
	}
}

// watchKeyRemovals has Config.WatchKeys ask for a check whenever another
// process announces a removal, until the server quits; the log says when
// it stops and starts hearing them (the timer covers the gap).
func (s *Server) watchKeyRemovals() {
	if s.cfg.WatchKeys == nil {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-s.quit
		cancel()
	}()
	var listening atomic.Bool
	up := func(on bool) {
		if listening.Swap(on) == on {
			return
		}
		if on {
			s.log.Info("listening for key removals by other replicas")
		} else if ctx.Err() == nil {
			s.log.Warn("not hearing key removals by other replicas (reconnecting): sessions' keys are checked every " + s.limits.RevokeCheck.String())
		}
	}
	if !s.cfg.WatchKeys(ctx, s.checkKeysNow, up) {
		cancel()
	}
}

// checkKeysNow asks watchKeys for a check without waiting for it.
func (s *Server) checkKeysNow() {
	select {
	case s.recheck <- struct{}{}:
	default:
	}
}

// endRevoked ends every open session whose key is no longer a user's.
func (s *Server) endRevoked() {
	s.mu.Lock()
	byKey := map[string][]*liveSession{}
	for ls := range s.sessions {
		byKey[ls.fp] = append(byKey[ls.fp], ls)
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for fp, sessions := range byKey {
		_, err := s.cfg.KeyActor(ctx, fp)
		if err == nil || !errors.Is(err, app.ErrNotFound) {
			continue // still a user's, or the lookup failed (keep, check again)
		}
		for _, ls := range sessions {
			s.log.Warn("session ended: key removed", "user", ls.user, "key", fp)
			// At once for all: telling a stalled client waits up to a
			// second, which must not delay the next session's end.
			go ls.end(fmt.Sprintf("key %s was removed: this session is ended", fp))
		}
	}
}
