package judge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
)

// CacheKey identifies a cached answer: the endpoint host, the model, the
// prompt template's sha256, the kind ("args", "selection", "quality",
// "predict") and the sha256 of the exact request sent.
type CacheKey struct {
	Endpoint, Model, TemplateSHA256, Kind, InputSHA256 string
}

// Cache stores validated answers. Put writes one whole row or nothing.
type Cache interface {
	Get(ctx context.Context, k CacheKey) (value []byte, ok bool, err error)
	Put(ctx context.Context, k CacheKey, value []byte) error
}

// Task is one request a run makes (or finds in the cache).
type Task struct {
	Request Request
	// Skip marks an item not to be sent (its outcome stays empty).
	Skip bool
}

// Outcome is what a run got for one task.
type Outcome struct {
	Value   json.RawMessage // the validated answer (nil when none)
	Cached  bool
	Err     error // a per-item error: malformed output after one retry, or not in the cache offline
	Missing bool  // offline and not in the cache
	Skipped bool  // not sent: the budget ran out or the run stopped
}

// Stats summarise a run.
type Stats struct {
	Requests  int   `json:"requests"`
	CacheHits int   `json:"cache_hits"`
	Errors    int   `json:"errors"`
	Missing   int   `json:"missing,omitempty"`
	Skipped   int   `json:"skipped,omitempty"`
	Tokens    Usage `json:"tokens"`
	// Partial: the budget ran out before every item was judged.
	Partial bool `json:"partial,omitempty"`
}

// Runner sends tasks with bounded concurrency through a cache.
type Runner struct {
	Client *Client // nil only when Offline
	Cache  Cache   // may be nil
	// Offline answers from the cache only.
	Offline bool
	// Concurrency bounds the tasks in flight (default 4).
	Concurrency int
	// Kind and TemplateSHA256 complete the cache key.
	Kind, TemplateSHA256 string
	// Endpoint and Model name the cache entries when Client is nil.
	Endpoint, Model string
	// Progress, when set, is called after each task with the count done.
	Progress func(done, total int)
}

// Decoder validates the choices of one task and returns the answer to
// cache; an error wrapping errMalformed is retried once.
type Decoder func(i int, choices []Choice) (json.RawMessage, error)

// InputSHA256 hashes what a request sends besides the model.
func InputSHA256(req Request) string {
	b, _ := json.Marshal(struct {
		Messages []Message  `json:"messages"`
		Tools    []ToolSpec `json:"tools,omitempty"`
		JSON     bool       `json:"json,omitempty"`
		N        int        `json:"n,omitempty"`
	}{req.Messages, req.Tools, req.JSON, max(req.N, 1)})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func (r *Runner) key(req Request) CacheKey {
	k := CacheKey{Endpoint: r.Endpoint, Model: r.Model, TemplateSHA256: r.TemplateSHA256, Kind: r.Kind, InputSHA256: InputSHA256(req)}
	if r.Client != nil {
		k.Endpoint, k.Model = r.Client.Host(), r.Client.Model()
	}
	return k
}

// Run processes the tasks. It returns the outcomes (one per task) and
// stats; a fatal endpoint error stops the run and is returned with the
// outcomes so far. A spent budget is not an error: the rest is Skipped and
// the stats say Partial.
//
// It is long because the workers, the budget, the cache and the fatal-error
// stop share one set of channels and counters; apart, they would need a
// struct to share them and say no more.
func (r *Runner) Run(ctx context.Context, tasks []Task, decode Decoder) ([]Outcome, Stats, error) {
	if !r.Offline && r.Client == nil {
		return nil, Stats{}, errors.New("judge: no client")
	}
	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]Outcome, len(tasks))
	conc := r.Concurrency
	if conc <= 0 {
		conc = 4
	}
	var (
		mu       sync.Mutex
		fatal    error
		budget   bool
		done     int
		wg       sync.WaitGroup
		sem      = make(chan struct{}, conc)
		total    int
		startReq int
	)
	var startUse Usage
	if r.Client != nil {
		startReq, startUse = r.Client.Requests(), r.Client.Usage()
	}
	for i := range tasks {
		if !tasks[i].Skip {
			total++
		}
	}
	finish := func() {
		mu.Lock()
		done++
		d := done
		mu.Unlock()
		if r.Progress != nil {
			r.Progress(d, total)
		}
	}
	stopped := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return fatal != nil || budget
	}
loop:
	for i := range tasks {
		if tasks[i].Skip {
			continue
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		if stopped() {
			<-sem
			break
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			o, err := r.one(ctx, i, tasks[i].Request, decode)
			switch {
			case errors.Is(err, ErrBudget):
				mu.Lock()
				budget = true
				mu.Unlock()
				o.Skipped = true
			case err != nil:
				mu.Lock()
				if fatal == nil {
					fatal = err
					cancel()
				}
				mu.Unlock()
				o.Skipped = true
			}
			out[i] = o
			if !o.Skipped {
				finish()
			}
		}(i)
	}
	wg.Wait()

	var st Stats
	for i := range out {
		if tasks[i].Skip {
			continue
		}
		o := &out[i]
		if o.Value == nil && o.Err == nil && !o.Skipped {
			o.Skipped = true // never started: the run stopped first
		}
		switch {
		case o.Skipped:
			st.Skipped++
		case o.Missing:
			st.Missing++
		case o.Err != nil:
			st.Errors++
		case o.Cached:
			st.CacheHits++
		}
	}
	if r.Client != nil {
		st.Requests = r.Client.Requests() - startReq
		u := r.Client.Usage()
		st.Tokens = Usage{Prompt: u.Prompt - startUse.Prompt, Completion: u.Completion - startUse.Completion, Total: u.Total - startUse.Total}
	}
	st.Partial = budget && st.Skipped > 0
	if fatal != nil {
		return out, st, fatal
	}
	return out, st, parent.Err()
}

// one answers one task from the cache or the endpoint.
func (r *Runner) one(ctx context.Context, i int, req Request, decode Decoder) (Outcome, error) {
	k := r.key(req)
	if r.Cache != nil {
		v, ok, err := r.Cache.Get(ctx, k)
		if err != nil {
			return Outcome{}, fmt.Errorf("judge cache: %w", err)
		}
		if ok {
			return Outcome{Value: v, Cached: true}, nil
		}
	}
	if r.Offline {
		return Outcome{Missing: true, Err: errors.New("not in the judge cache (--judge-offline)")}, nil
	}
	var lastErr error
	for attempt := 0; attempt < 2; attempt++ {
		choices, err := r.Client.Complete(ctx, req)
		if err != nil {
			return Outcome{}, err
		}
		v, err := decode(i, choices)
		if err == nil {
			if r.Cache != nil {
				if err := r.Cache.Put(ctx, k, v); err != nil {
					return Outcome{}, fmt.Errorf("judge cache: %w", err)
				}
			}
			return Outcome{Value: v}, nil
		}
		if !errors.Is(err, errMalformed) {
			return Outcome{}, err
		}
		lastErr = err
	}
	return Outcome{Err: lastErr}, nil
}
