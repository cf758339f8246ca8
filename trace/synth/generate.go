package synth

import (
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/goldtrace/goldtrace/trace"
)

// Options say which traces to generate. Trace k (counting from Offset) is a
// function of Seed and k alone, so a set generated with Offset 100 holds the
// same traces as positions 100… of a larger set with the same seed, and two
// sets with disjoint ranges have disjoint ids.
type Options struct {
	Seed int64
	// N is how many traces to generate.
	N int
	// Offset is the number of the first trace: ids are Prefix + Offset+1, …
	Offset int
	// Prefix starts every trace id; "tr_" when empty.
	Prefix string
	// Start is the timestamp of trace 0; 2026-05-01T08:00:00Z when zero.
	Start time.Time
	// Interval is the mean time between traces; 90s when zero.
	Interval time.Duration
}

func (o Options) withDefaults() Options {
	if o.Prefix == "" {
		o.Prefix = "tr_"
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC)
	}
	if o.Interval <= 0 {
		o.Interval = 90 * time.Second
	}
	return o
}

// Expected is the right answer at one decision point of a generated trace and
// what, if anything, the model got wrong there on purpose.
type Expected struct {
	ItemID  string
	TraceID string
	Turn    int // index of the assistant message in the trace
	// Calls is the right call list; empty when NoCall.
	Calls  []trace.Call
	NoCall bool
	// ArgMatch names the arguments whose exact value does not matter, with
	// how to compare them: "any" (free text such as a hand-off summary) or
	// "fuzzy" (case and spacing). Nil when every argument must match exactly.
	ArgMatch map[string]string
	// Mistake is the deliberate error in the model's observed calls, or
	// MistakeNone when the model did the right thing.
	Mistake Mistake
}

// Case is one generated trace with the truth of each of its decision points,
// in message order (one per assistant message).
type Case struct {
	Trace    trace.Trace
	Expected []Expected
}

// Stream generates the traces of Options one at a time, in constant memory.
type Stream struct {
	opts Options
	next int
}

// NewStream returns a Stream over opts.
func NewStream(opts Options) *Stream { return &Stream{opts: opts.withDefaults()} }

// NextCase returns the next trace with its truth, or false after N traces.
func (s *Stream) NextCase() (Case, bool) {
	if s.next >= s.opts.N {
		return Case{}, false
	}
	c := generateCase(s.opts, s.opts.Offset+s.next, true)
	s.next++
	return c, true
}

// Next returns the next trace, or false after N traces.
func (s *Stream) Next() (trace.Trace, bool) {
	if s.next >= s.opts.N {
		return trace.Trace{}, false
	}
	c := generateCase(s.opts, s.opts.Offset+s.next, false)
	s.next++
	return c.Trace, true
}

// Generate returns the N traces of opts.
func Generate(opts Options) []trace.Trace {
	out := make([]trace.Trace, 0, max(opts.N, 0))
	s := NewStream(opts)
	for t, ok := s.Next(); ok; t, ok = s.Next() {
		out = append(out, t)
	}
	return out
}

// GenerateCases returns the N traces of opts with their truth.
func GenerateCases(opts Options) []Case {
	out := make([]Case, 0, max(opts.N, 0))
	s := NewStream(opts)
	for c, ok := s.NextCase(); ok; c, ok = s.NextCase() {
		out = append(out, c)
	}
	return out
}

// traceID is the id of trace number k (0-based).
func traceID(o Options, k int) string {
	n := strconv.Itoa(k + 1)
	for len(n) < 6 {
		n = "0" + n
	}
	return o.Prefix + n
}

// generateCase builds trace number k from its own random source, and its
// truth when withTruth is set.
func generateCase(o Options, k int, withTruth bool) Case {
	r := rand.New(rand.NewPCG(uint64(o.Seed), uint64(k)*0x9E3779B97F4A7C15+1))
	id := traceID(o, k)
	jitter := time.Duration(r.Int64N(int64(o.Interval)))
	ts := o.Start.Add(time.Duration(k)*o.Interval + jitter - o.Interval/2).UTC().Truncate(time.Second)
	g := newConversation(r, id, ts)
	g.withTruth = withTruth
	g.play()
	return Case{
		Trace: trace.Trace{
			ID:        id,
			Timestamp: ts,
			Metadata:  g.metadata,
			Tools:     g.offeredTools(),
			Messages:  g.msgs,
		},
		Expected: g.expected,
	}
}
