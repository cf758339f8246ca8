package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goldtrace/goldtrace/trace"
	"github.com/klauspost/compress/zstd"
)

// bodyTestInput is n canonical records of one support agent (a long
// system prompt on every trace, as real logs have), ids from first.
func bodyTestInput(first, n int, prompt string) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"id":"t%d","messages":[{"role":"system","content":%q},{"role":"user","content":"where is order ORD-%05d? <it's late> & I'm \"worried\""},{"role":"assistant","content":"","tool_calls":[{"id":"c%d","name":"get_order","arguments":{"order_id":"ORD-%05d"}}]},{"role":"tool","tool_call_id":"c%d","content":"{\"status\":\"shipped\",\"eta\":\"2026-05-%02d\"}"},{"role":"assistant","content":"It ships on the %dth."}]}`+"\n",
			i, prompt, i*7919%100000, i, i*7919%100000, i, 1+i%28, 1+i%28)
	}
	return b.String()
}

// otherTestInput is n records of another agent, in another language.
func otherTestInput(first, n int) string {
	var b strings.Builder
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&b, `{"id":"x%d","messages":[{"role":"system","content":"Tu es Léa, conseillère de la Compagnie Exemple : réponds en français, vouvoie le client, vérifie son identité avant toute modification du contrat n°%d."},{"role":"user","content":"Bonjour, je voudrais changer l'adresse de facturation de mon abonnement %d, merci."},{"role":"assistant","content":"","tool_calls":[{"id":"appel_%d","name":"modifier_adresse","arguments":{"contrat":%d,"pays":"FR"}}]},{"role":"tool","tool_call_id":"appel_%d","content":"{\"resultat\":\"ok\",\"delai_jours\":%d}"},{"role":"assistant","content":"C'est fait : la nouvelle adresse sera prise en compte sous %d jours ouvrés."}]}`+"\n",
			i, i*31, i*17, i, i*13, i, i%9, i%9)
	}
	return b.String()
}

const bodyTestPrompt = "You are Nora, the support agent of Northwind Outfitters. Only call a tool when you need information you don't have. " +
	"Ask for the order number when it is needed. Escalate to a human when the customer asks for one. Returns within 30 days of delivery."

// bodyDictIDs returns, per stored trace, the dictionary id its body's
// frame names (0 for none).
func bodyDictIDs(t *testing.T, st *Store) map[string]uint32 {
	t.Helper()
	rows, err := st.Reader().QueryContext(context.Background(), `SELECT id, body FROM traces`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]uint32{}
	for rows.Next() {
		var id string
		var body []byte
		if err := rows.Scan(&id, &body); err != nil {
			t.Fatal(err)
		}
		var h zstd.Header
		if err := h.Decode(body); err != nil {
			t.Fatal(err)
		}
		out[id] = h.DictionaryID
	}
	return out
}

// An import compresses its bodies with a dictionary made of its first
// bodies; every trace reads back as imported, from this Store and from one
// opened afresh; the next import of similar traces reuses the dictionary.
func TestImportBodiesUseADictionary(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gt.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	input := bodyTestInput(0, 400, bodyTestPrompt)
	if _, err := st.ImportTraces(ctx, bytesOpener([]byte(input)), ImportOptions{Source: "a.jsonl"}); err != nil {
		t.Fatal(err)
	}
	ids := bodyDictIDs(t, st)
	withDict := 0
	for _, id := range ids {
		if id != 0 {
			withDict++
		}
	}
	if n := countRows(t, st, "body_dicts"); n != 1 || withDict < 250 || withDict == len(ids) {
		t.Fatalf("%d dictionaries, %d of %d bodies use one; want 1, the bodies after the first 64 kB", n, withDict, len(ids))
	}
	fresh, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	want := readTraces(t, input)
	for _, s := range []*Store{st, fresh} {
		for _, tr := range want {
			got, err := s.Trace(ctx, tr.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !sameMessages(got.Messages, tr.Messages) {
				t.Fatalf("trace %s reads back as %+v", tr.ID, got.Messages)
			}
		}
	}

	// Similar traces: the stored dictionary serves them, none is added.
	if _, err := st.ImportTraces(ctx, bytesOpener([]byte(bodyTestInput(1000, 300, bodyTestPrompt))), ImportOptions{Source: "b.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, st, "body_dicts"); n != 1 {
		t.Fatalf("%d dictionaries after a similar import, want 1", n)
	}
	// Different traces get their own; the Store opened before reads them.
	if _, err := st.ImportTraces(ctx, bytesOpener([]byte(otherTestInput(2000, 300))), ImportOptions{Source: "c.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, st, "body_dicts"); n != 2 {
		t.Fatalf("%d dictionaries after a different import, want 2", n)
	}
	for _, tr := range readTraces(t, otherTestInput(2000, 300)) {
		got, err := fresh.Trace(ctx, tr.ID)
		if err != nil || !sameMessages(got.Messages, tr.Messages) {
			t.Fatalf("trace %s reads back as %+v, %v", tr.ID, got.Messages, err)
		}
	}
}

// A body naming a dictionary the store does not hold is reported as
// damaged, in one line.
func TestBodyWithUnknownDictionary(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	if _, _, err := importString(t, st, impA+"\n", false); err != nil {
		t.Fatal(err)
	}
	enc := newDictEncoder(bodyDict{id: 77, dict: bytes.Repeat([]byte(`{"role":"user","content":"x"}`), 100)})
	body := enc.EncodeAll([]byte(`[{"role":"user","content":"x"}]`), nil)
	err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE traces SET body = ? WHERE id = 'a'`, body)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = st.Trace(ctx, "a")
	if err == nil || !strings.Contains(err.Error(), "stored trace body is damaged") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line saying the body is damaged", err)
	}
}

func readTraces(t *testing.T, input string) []trace.Trace {
	t.Helper()
	r, err := trace.NewReader(strings.NewReader(input), trace.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	var out []trace.Trace
	for {
		tr, err := r.Next()
		if err != nil {
			return out
		}
		out = append(out, tr)
	}
}

func sameMessages(a, b []trace.Message) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// BenchmarkBodyDecode measures reading stored trace bodies back, compressed
// with and without a dictionary.
func BenchmarkBodyDecode(b *testing.B) {
	st := openTemp(b)
	ctx := context.Background()
	r, err := trace.NewReader(strings.NewReader(bodyTestInput(0, 500, bodyTestPrompt)), trace.FormatAuto)
	if err != nil {
		b.Fatal(err)
	}
	enc := trace.NewEncoder()
	var bodies [][]byte
	for {
		tr, err := r.Next()
		if err != nil {
			break
		}
		e, err := enc.Encode(tr)
		if err != nil {
			b.Fatal(err)
		}
		bodies = append(bodies, e.Messages)
	}
	dict := bodyDict{id: 1, dict: bytes.Join(bodies[:100], nil)}
	err = st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO body_dicts(id, hash, dict) VALUES (1, 'h', ?)`, dict.dict)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	dictEnc := newDictEncoder(dict)
	for _, bc := range []struct {
		name string
		pack func([]byte) []byte
	}{{"plain", compressBody}, {"dict", func(m []byte) []byte { return dictEnc.EncodeAll(m, nil) }}} {
		b.Run(bc.name, func(b *testing.B) {
			var packed [][]byte
			size := 0
			for _, m := range bodies {
				packed = append(packed, bc.pack(m))
				size += len(m)
			}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range packed {
					if _, err := st.traceMessagesJSON(ctx, nil, p); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// A body whose dictionary cannot be loaded now (the read is cancelled) is
// not reported as damaged: the read's own error is.
func TestBodyDictionaryLoadFailureIsNotDamage(t *testing.T) {
	st := openTemp(t)
	ctx := context.Background()
	d := bodyDict{id: 1, dict: bytes.Repeat([]byte(`{"role":"user","content":"x"}`), 100)}
	err := st.WithTx(ctx, func(tx *Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO body_dicts(id, hash, dict) VALUES (?, 'h', ?)`, d.id, d.dict)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	msgs := []byte(`[{"role":"user","content":"x"}]`)
	body := newDictEncoder(d).EncodeAll(msgs, nil)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = st.traceMessagesJSON(cancelled, nil, body)
	if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "damaged") {
		t.Fatalf("err = %v, want the cancellation, not damage", err)
	}
	got, err := st.traceMessagesJSON(ctx, nil, body)
	if err != nil || !bytes.Equal(got, msgs) {
		t.Fatalf("read back %q, %v", got, err)
	}
}
