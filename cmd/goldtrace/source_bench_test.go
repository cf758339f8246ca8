package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/goldtrace/goldtrace/internal/rusage"
)

// BenchmarkSampleFromSources runs the real binary's sample --n 500 --by tool
// on one set of synthetic traces written three ways: a Langfuse-layout
// Parquet export on disk, the same export behind an in-process S3 server,
// and canonical JSONL on disk (sample --from's one-pass reservoir). Each
// reports wall time, the child's peak RSS and what it read.
//
// GOLDTRACE_BENCH_SOURCE_TRACES sets the size (default 20,000 traces, about
// 60,000 decision points; 3,340,000 traces are about 10M).
// GOLDTRACE_BENCH_SOURCE_DIR keeps the generated files between runs.
func BenchmarkSampleFromSources(b *testing.B) {
	traces := 20_000
	if v := os.Getenv("GOLDTRACE_BENCH_SOURCE_TRACES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("GOLDTRACE_BENCH_SOURCE_TRACES: %v", err)
		}
		traces = n
	}
	dir := os.Getenv("GOLDTRACE_BENCH_SOURCE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	bin := filepath.Join(b.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(args ...string) ([]byte, int64, time.Duration) {
		b.Helper()
		cmd := exec.Command(bin, args...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		peak, err := rusage.Run(cmd)
		took := time.Since(start)
		if err != nil {
			b.Fatalf("goldtrace %v: %v\n%s", args, err, errb.String())
		}
		return out.Bytes(), peak, took
	}
	files := map[string]string{"parquet": filepath.Join(dir, fmt.Sprintf("langfuse-%d.parquet", traces)),
		"jsonl": filepath.Join(dir, fmt.Sprintf("traces-%d.jsonl", traces))}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			run("demo", "--write-traces", strconv.Itoa(traces), f, "--seed", "11")
		}
	}
	db := filepath.Join(b.TempDir(), "bench.db")
	run("--db", db, "init")
	sample := []string{"--db", db, "sample", "--n", "500", "--by", "tool", "--seed", "7", "--dry-run", "--json"}

	report := func(b *testing.B, out []byte, peak int64, took time.Duration, size int64) {
		var plan struct {
			Sampled    int `json:"sampled"`
			Read       int `json:"traces_read"`
			SourceInfo *struct {
				Calls     int64 `json:"calls"`
				BytesRead int64 `json:"bytes_read"`
				Requests  int64 `json:"requests"`
			} `json:"source_info"`
		}
		if err := json.Unmarshal(out, &plan); err != nil {
			b.Fatal(err)
		}
		if plan.Sampled != 500 {
			b.Fatalf("sampled %d", plan.Sampled)
		}
		b.ReportMetric(took.Seconds(), "s/sample")
		b.ReportMetric(float64(peak)/1e6, "MB-peak-RSS")
		b.ReportMetric(float64(size)/1e6, "MB-source")
		if si := plan.SourceInfo; si != nil {
			b.ReportMetric(float64(si.Calls), "decisions")
			b.ReportMetric(100*float64(si.BytesRead)/float64(size), "%-bytes-read")
			b.ReportMetric(float64(si.Requests), "requests")
		} else {
			b.ReportMetric(100, "%-bytes-read") // one pass over the whole file
		}
	}
	size := func(path string) int64 {
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		return fi.Size()
	}

	b.Run("parquet-disk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, peak, took := run(append(sample, "--from", files["parquet"])...)
			report(b, out, peak, took, size(files["parquet"]))
		}
	})
	b.Run("jsonl-disk", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out, peak, took := run(append(sample, "--from", files["jsonl"])...)
			report(b, out, peak, took, size(files["jsonl"]))
		}
	})
	b.Run("parquet-s3", func(b *testing.B) {
		backend := s3mem.New()
		srv := httptest.NewServer(gofakes3.New(backend).Server())
		defer srv.Close()
		if err := backend.CreateBucket("exports"); err != nil {
			b.Fatal(err)
		}
		f, err := os.Open(files["parquet"])
		if err != nil {
			b.Fatal(err)
		}
		n := size(files["parquet"])
		_, err = backend.PutObject("exports", "proj/observations_v2/part-0.parquet", map[string]string{}, f, n, nil)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.Setenv("AWS_ACCESS_KEY_ID", "bench")
		b.Setenv("AWS_SECRET_ACCESS_KEY", "bench")
		b.Setenv("AWS_REGION", "us-east-1")
		b.Setenv("AWS_EC2_METADATA_DISABLED", "true")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out, peak, took := run(append(sample, "--from", "s3://exports/proj/observations_v2/", "--s3-endpoint", srv.URL)...)
			report(b, out, peak, took, n)
		}
	})
}
