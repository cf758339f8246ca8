package store

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// importBenchTraces writes n canonical JSONL traces, deterministic for a seed: a
// support agent with six tools, one to three tool-calling turns, metadata.
func importBenchTraces(n int, seed uint64) []byte { return importBenchTracesTurns(n, seed, 3) }

// importBenchTracesTurns is importBenchTraces with 1 to maxTurns
// tool-calling turns per trace.
func importBenchTracesTurns(n int, seed uint64, maxTurns int) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	tools := []string{"get_order_status", "get_order_history", "refund_order", "update_address", "search_faq", "escalate"}
	var buf bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&buf, `{"id":"tr_%08d","timestamp":"2026-05-%02dT%02d:%02d:00Z","metadata":{"model":"gpt-4.1","prompt_version":"v%d","cohort":"c%d"},"tools":[`,
			i, 1+i%28, i%24, i%60, rng.IntN(9), rng.IntN(5))
		for j, name := range tools {
			if j > 0 {
				buf.WriteByte(',')
			}
			fmt.Fprintf(&buf, `{"type":"function","function":{"name":%q,"description":"Tool %d of the support agent, which looks things up for the customer.","parameters":{"type":"object","properties":{"order_id":{"type":"string","description":"The order id, e.g. ORD-1234."},"reason":{"type":"string","enum":["damaged","late","other"]}},"required":["order_id"]}}}`, name, j)
		}
		buf.WriteString(`],"messages":[{"role":"system","content":"You are a helpful support agent for an online shop. Be concise and use tools when needed."},`)
		turns := 1 + rng.IntN(maxTurns)
		for k := 0; k < turns; k++ {
			tool := tools[rng.IntN(len(tools))]
			fmt.Fprintf(&buf, `{"role":"user","content":"Hi, I have a question about order ORD-%d, it has not arrived yet and I am getting worried."},`, rng.IntN(100000))
			fmt.Fprintf(&buf, `{"role":"assistant","content":"","tool_calls":[{"id":"call_%d","type":"function","function":{"name":%q,"arguments":"{\"order_id\":\"ORD-%d\",\"reason\":\"late\"}"}}]},`, k, tool, rng.IntN(100000))
			fmt.Fprintf(&buf, `{"role":"tool","tool_call_id":"call_%d","content":"{\"status\":\"in_transit\",\"eta\":\"2026-05-%02d\"}"},`, k, 1+rng.IntN(28))
		}
		buf.WriteString(`{"role":"assistant","content":"Your order is on its way and should arrive within two days."}]}` + "\n")
	}
	return buf.Bytes()
}

// BenchmarkImport measures parse + insert of canonical JSONL into a fresh
// database: one ImportTraces (two passes over the input, the second one
// writing in short transactions) per iteration. "short" traces have 1-3
// tool-calling turns, "long" ones 1-60 (where per-item hashing used to be
// quadratic); "100MB" is a generated 100 MB file of short traces (run it
// with -benchtime=1x). Besides MB/s it reports the bytes the process wrote
// (write syscalls: log, checkpoints, database) and the store's size, both
// per input byte.
func BenchmarkImport(b *testing.B) {
	for _, bc := range []struct {
		name     string
		n, turns int
	}{{"short", 5000, 3}, {"long", 300, 60}, {"100MB", 32000, 3}} {
		b.Run(bc.name, func(b *testing.B) { benchmarkImport(b, importBenchTracesTurns(bc.n, 1, bc.turns)) })
	}
}

// writtenBytes is how many bytes this process has passed to write calls
// (/proc/self/io wchar; 0 where that is not available).
func writtenBytes() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// storeSize is the database's size on disk with its log.
func storeSize(path string) int64 {
	var n int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(path + suffix); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func benchmarkImport(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	ctx := context.Background()
	traces, chunks := 0, 0
	var cpu, longest time.Duration
	var written, stored int64
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), fmt.Sprintf("bench%d.db", i))
		st, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		cpu0, _ := processCPU()
		w0 := writtenBytes()
		b.StartTimer()
		res, err := st.ImportTraces(ctx, bytesOpener(data), ImportOptions{Source: "bench.jsonl"})
		if err != nil {
			b.Fatal(err)
		}
		traces += res.Imported
		chunks += res.chunks
		longest = max(longest, res.longestChunk)
		b.StopTimer()
		cpu1, _ := processCPU()
		cpu += cpu1 - cpu0
		written += writtenBytes() - w0
		st.Close()
		stored += storeSize(path)
		b.StartTimer()
	}
	in := float64(len(data)) * float64(b.N)
	b.ReportMetric(float64(traces)/b.Elapsed().Seconds(), "traces/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(written)/in, "written-B/in-B")
	b.ReportMetric(float64(stored)/in, "store-B/in-B")
	b.ReportMetric(float64(chunks)/float64(b.N), "chunks/op")
	b.ReportMetric(float64(longest.Milliseconds()), "max-lock-ms")
}
