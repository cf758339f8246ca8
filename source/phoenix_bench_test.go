package source

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/goldtrace/goldtrace/internal/rusage"
	"github.com/goldtrace/goldtrace/trace/synth"
)

// BenchmarkSampleFromPhoenix runs the real binary's sample --n 500 --by tool
// --from postgres://… against Phoenix's schema in the PostgreSQL
// GOLDTRACE_TEST_PG names, holding GOLDTRACE_BENCH_PHOENIX_TRACES synthetic
// traces (default 3,000: about 9,000 LLM spans; 670,000 are about 2M), and
// reports time, the child's peak RSS and the spans whose attributes it
// fetched (rows transferred beyond the candidates' ids).
func BenchmarkSampleFromPhoenix(b *testing.B) {
	n := 3000
	if v := os.Getenv("GOLDTRACE_BENCH_PHOENIX_TRACES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			b.Fatalf("GOLDTRACE_BENCH_PHOENIX_TRACES: %v", err)
		}
	}
	dsn := testDatabase(b)
	s := synth.NewStream(synth.Options{Seed: 13, N: n})
	loadStart := time.Now()
	loadPhoenix(b, dsn, s.Next)
	b.Logf("loaded %d traces into Phoenix's schema in %s", n, time.Since(loadStart).Round(time.Second))
	bin := filepath.Join(b.TempDir(), "goldtrace")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/goldtrace/goldtrace/cmd/goldtrace").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	db := filepath.Join(b.TempDir(), "bench.db")
	if out, err := exec.Command(bin, "--db", db, "init").CombinedOutput(); err != nil {
		b.Fatalf("init: %v\n%s", err, out)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cmd := exec.Command(bin, "--db", db, "sample", "--from", dsn, "--n", "500", "--by", "tool", "--seed", "7", "--dry-run", "--json")
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		peak, err := rusage.Run(cmd)
		if err != nil {
			b.Fatalf("sample: %v\n%s", err, errb.String())
		}
		took := time.Since(start)
		var plan struct {
			Sampled    int `json:"sampled"`
			SourceInfo struct {
				Calls     int64 `json:"calls"`
				BytesRead int64 `json:"bytes_read"`
				Requests  int64 `json:"requests"`
			} `json:"source_info"`
		}
		if err := json.Unmarshal(out.Bytes(), &plan); err != nil {
			b.Fatal(err)
		}
		if plan.Sampled != 500 {
			b.Fatalf("sampled %d", plan.Sampled)
		}
		b.ReportMetric(took.Seconds(), "s/sample")
		b.ReportMetric(float64(peak)/1e6, "MB-peak-RSS")
		b.ReportMetric(float64(plan.SourceInfo.Calls), "LLM-spans")
		b.ReportMetric(float64(plan.SourceInfo.Requests), "spans-fetched")
		b.ReportMetric(float64(plan.SourceInfo.BytesRead)/1e6, "MB-attributes-fetched")
	}
}
