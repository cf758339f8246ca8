package trace

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// benchTraces writes n canonical JSONL traces, deterministic for a seed: a
// support agent with six tools, one to three tool-calling turns, metadata.
func benchTraces(n int, seed uint64) []byte {
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
		turns := 1 + rng.IntN(3)
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

// BenchmarkImport measures parsing canonical JSONL (record splitting,
// decoding, normalisation, validation) on one goroutine.
func BenchmarkImport(b *testing.B) {
	data := benchTraces(5000, 1)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	traces := 0
	for i := 0; i < b.N; i++ {
		r, err := NewReader(bytes.NewReader(data), FormatAuto)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			traces++
		}
	}
	b.ReportMetric(float64(traces)/b.Elapsed().Seconds(), "traces/s")
}

// BenchmarkEncode measures what an import computes per trace once it is
// parsed: canonical messages, content, tool and input hashes, items.
func BenchmarkEncode(b *testing.B) {
	traces := readAllTraces(b, benchTraces(2000, 1))
	enc := NewEncoder()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, t := range traces {
			if _, err := enc.Encode(t); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N*len(traces))/b.Elapsed().Seconds(), "traces/s")
}

// readAllTraces reads every trace of data (format auto), failing on any
// error.
func readAllTraces(tb testing.TB, data []byte) []Trace {
	tb.Helper()
	r, err := NewReader(bytes.NewReader(data), FormatAuto)
	if err != nil {
		tb.Fatal(err)
	}
	var out []Trace
	for {
		t, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, t)
	}
}
