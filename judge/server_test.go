package judge

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// memCache is an in-memory Cache for the judge package's own tests (the
// SQLite cache is tested in store and end to end in the command tests).
type memCache struct {
	mu sync.Mutex
	m  map[CacheKey][]byte
}

func (c *memCache) Get(_ context.Context, k CacheKey) ([]byte, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok, nil
}

func (c *memCache) Put(_ context.Context, k CacheKey, v []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[CacheKey][]byte{}
	}
	c.m[k] = append([]byte(nil), v...)
	return nil
}

func testClient(t *testing.T, url string) *Client {
	t.Helper()
	c, err := NewClient(url+"/v1", "sk-test", "judge-model-2024-08-06")
	if err != nil {
		t.Fatal(err)
	}
	c.Backoff = 5 * time.Millisecond // tests do not wait out real backoffs
	c.MaxBackoff = 20 * time.Millisecond
	return c
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
