package server

import (
	"testing"
	"time"
)

func TestAuthLimiterBlocksAHostAfterTheLimit(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	l := newAuthLimiter(3, time.Minute, func() time.Time { return now })
	for i := 1; i <= 2; i++ {
		if _, b := l.fail("10.0.0.1"); b {
			t.Fatalf("failure %d blocked the host", i)
		}
	}
	if l.blocked("10.0.0.1") {
		t.Fatal("blocked before the limit")
	}
	if _, b := l.fail("10.0.0.1"); !b {
		t.Fatal("the third failure did not block")
	}
	if !l.blocked("10.0.0.1") || l.blocked("10.0.0.2") {
		t.Fatal("want 10.0.0.1 blocked and 10.0.0.2 not")
	}
	now = now.Add(61 * time.Second)
	if l.blocked("10.0.0.1") {
		t.Fatal("still blocked after the window")
	}
	// Failures spread wider than the window never block.
	for i := 0; i < 10; i++ {
		now = now.Add(31 * time.Second)
		if _, b := l.fail("10.0.0.3"); b {
			t.Fatalf("failure %d blocked", i)
		}
		now = now.Add(31 * time.Second)
	}
}
