package source

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/goldtrace/goldtrace/sampling"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// fakeS3 is a real S3-protocol server (gofakes3, in memory) on 127.0.0.1,
// behind a handler that can refuse requests the way S3 does: 403 for keys
// under a denied prefix, 503 SlowDown for the next slowDowns GETs.
type fakeS3 struct {
	url       string
	backend   *s3mem.Backend
	denied    atomic.Value // string; a stalled request's handler may still read it as the test moves on
	slowDowns atomic.Int32
	stall     atomic.Int64 // GETs sleep this many nanoseconds first
	gets      atomic.Int64
}

func newFakeS3(t *testing.T) *fakeS3 {
	t.Helper()
	f := &fakeS3{backend: s3mem.New()}
	faker := gofakes3.New(f.backend)
	h := faker.Server()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Query().Get("list-type") == "" {
			f.gets.Add(1)
			time.Sleep(time.Duration(f.stall.Load()))
			if denied, _ := f.denied.Load().(string); denied != "" && strings.Contains(r.URL.Path, denied) {
				w.WriteHeader(http.StatusForbidden)
				w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>`))
				return
			}
			if f.slowDowns.Add(-1) >= 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`))
				return
			}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	f.url = srv.URL
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	return f
}

func (f *fakeS3) put(t *testing.T, bucket, key string, data []byte) {
	t.Helper()
	if err := f.backend.CreateBucket(bucket); err != nil && !gofakes3.HasErrorCode(err, gofakes3.ErrBucketAlreadyExists) {
		t.Fatal(err)
	}
	if _, err := f.backend.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatal(err)
	}
}

func TestSampleFromS3MatchesDisk(t *testing.T) {
	s3 := newFakeS3(t)
	dir := t.TempDir()
	var total int64
	for i, day := range []string{"dt=2026-11-01", "dt=2026-11-02"} {
		p := filepath.Join(dir, day, "part-0.parquet")
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeExport(t, p, Langfuse, synth.Options{Seed: 5, N: 400, Offset: 400 * i})
		data, _ := os.ReadFile(p)
		total += int64(len(data))
		s3.put(t, "exports", "proj/observations_v2/"+day+"/part-0.parquet", data)
	}
	s3.put(t, "exports", "proj/observations_v2/_SUCCESS", []byte("x"))
	opts := Options{Spec: dir, Seed: 11, N: 30, By: "tool", Alloc: sampling.AllocProportional}
	local, err := Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Spec, opts.S3Endpoint = "s3://exports/proj/observations_v2/", s3.url
	remote, err := Sample(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(remote.Sample.Items) != 30 || len(remote.Sample.Items) != len(local.Sample.Items) {
		t.Fatalf("sampled %d from S3, %d from disk", len(remote.Sample.Items), len(local.Sample.Items))
	}
	for i := range local.Sample.Items {
		if remote.Sample.Items[i] != local.Sample.Items[i] {
			t.Fatalf("item %d: S3 %+v, disk %+v", i, remote.Sample.Items[i], local.Sample.Items[i])
		}
	}
	info := remote.Info
	if len(info.Files) != 2 || info.Files[0].Version == "" || !strings.HasPrefix(info.Files[0].Name, "s3://exports/proj/") {
		t.Fatalf("files %+v", info.Files)
	}
	if info.BytesTotal != total || info.BytesRead <= 0 || info.BytesRead >= total {
		t.Fatalf("fetched %d of %d bytes", info.BytesRead, total)
	}
	if info.Requests != s3.gets.Load()+1 { // the GETs and one LIST
		t.Fatalf("counted %d requests, the server saw %d GETs", info.Requests, s3.gets.Load())
	}
	t.Logf("S3: %d requests, %d of %d bytes (%.1f%%)", info.Requests, info.BytesRead, total, 100*float64(info.BytesRead)/float64(total))
}

func TestS3RetriesThrottlingAndNamesFailures(t *testing.T) {
	s3 := newFakeS3(t)
	p := filepath.Join(t.TempDir(), "a.parquet")
	writeExport(t, p, LangSmith, synth.Options{Seed: 2, N: 30})
	data, _ := os.ReadFile(p)
	s3.put(t, "exports", "runs/day=01/a.parquet", data)
	s3.put(t, "exports", "secret/a.parquet", data)
	s3.put(t, "other", "x.txt", []byte("x"))
	opts := Options{Seed: 1, N: 5, Alloc: sampling.AllocProportional, S3Endpoint: s3.url}
	defer func(d time.Duration) { s3MaxBackoff = d }(s3MaxBackoff)
	s3MaxBackoff = 20 * time.Millisecond

	s3.slowDowns.Store(2) // two 503 SlowDown answers, then the retries get through
	opts.Spec = "s3://exports/runs/"
	if _, err := Sample(context.Background(), opts); err != nil {
		t.Fatalf("throttled twice: %v", err)
	}

	s3.slowDowns.Store(1000)
	if _, err := Sample(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "s3://exports/runs/day=01/a.parquet: throttled (503 SlowDown) after 5 attempts") {
		t.Fatalf("throttled for good: %v", err)
	}
	s3.slowDowns.Store(0)

	defer func(d time.Duration) { s3Timeout = d }(s3Timeout)
	s3Timeout = 50 * time.Millisecond
	s3.stall.Store(int64(200 * time.Millisecond))
	opts.Spec = "s3://exports/runs/"
	if _, err := Sample(context.Background(), opts); err == nil || !strings.Contains(err.Error(), "s3://exports/runs/day=01/a.parquet: timed out after 50ms") {
		t.Fatalf("stalled server: %v", err)
	}
	s3.stall.Store(0)

	for _, c := range []struct{ spec, denied, want string }{
		{"s3://exports/secret/", "secret", "s3://exports/secret/a.parquet: access denied (403 AccessDenied)"},
		{"s3://nosuchbucket/x/", "", "s3://nosuchbucket: no such bucket (404)"},
		{"s3://other/", "", "s3://other/: no .parquet objects under this prefix"},
		{"s3://exports/empty/", "", "s3://exports/empty/: no .parquet objects under this prefix"},
	} {
		s3.denied.Store(c.denied)
		opts.Spec = c.spec
		_, err := Sample(context.Background(), opts)
		if err == nil || err.Error() != c.want && !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting %q", c.spec, err, c.want)
		}
	}
}
