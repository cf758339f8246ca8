package store

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestJudgeVerdictCache(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	k := JudgeKey{Endpoint: "127.0.0.1:1", Model: "m-2024-08-06", TemplateSHA256: "t", Kind: "args", InputSHA256: strings.Repeat("a", 64)}
	if _, ok, err := st.JudgeVerdict(ctx, k); ok || err != nil {
		t.Fatalf("empty cache: ok=%v err=%v", ok, err)
	}
	if err := st.PutJudgeVerdict(ctx, k, []byte(`{"score":1,"reason":"same"}`)); err != nil {
		t.Fatal(err)
	}
	// a second answer for the same key keeps the first (reruns give the same numbers)
	if err := st.PutJudgeVerdict(ctx, k, []byte(`{"score":0,"reason":"other"}`)); err != nil {
		t.Fatal(err)
	}
	v, ok, err := st.JudgeVerdict(ctx, k)
	if !ok || err != nil || string(v) != `{"score":1,"reason":"same"}` {
		t.Fatalf("got %s %v %v", v, ok, err)
	}
	for _, other := range []JudgeKey{
		{Endpoint: "other:1", Model: k.Model, TemplateSHA256: k.TemplateSHA256, Kind: k.Kind, InputSHA256: k.InputSHA256},
		{Endpoint: k.Endpoint, Model: "m2", TemplateSHA256: k.TemplateSHA256, Kind: k.Kind, InputSHA256: k.InputSHA256},
		{Endpoint: k.Endpoint, Model: k.Model, TemplateSHA256: "t2", Kind: k.Kind, InputSHA256: k.InputSHA256},
		{Endpoint: k.Endpoint, Model: k.Model, TemplateSHA256: k.TemplateSHA256, Kind: "selection", InputSHA256: k.InputSHA256},
	} {
		if _, ok, _ := st.JudgeVerdict(ctx, other); ok {
			t.Fatalf("%+v hit the cache of %+v", other, k)
		}
	}
	// a row that is not JSON, or a malformed key, is refused whole
	bad := k
	bad.InputSHA256 = strings.Repeat("b", 64)
	if err := st.PutJudgeVerdict(ctx, bad, []byte(`{"score":`)); err == nil {
		t.Fatal("half-written verdict accepted")
	}
	if _, ok, _ := st.JudgeVerdict(ctx, bad); ok {
		t.Fatal("refused row is readable")
	}
	bad.Kind = "vibes"
	if err := st.PutJudgeVerdict(ctx, bad, []byte(`{}`)); err == nil {
		t.Fatal("unknown kind accepted")
	}
}

func TestJudgeCalibrations(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	for _, s := range []string{`{"agreement":0.5}`, `{"agreement":0.9}`} {
		if err := st.AddJudgeCalibration(ctx, JudgeCalibration{Gold: "support@v1", Kind: "args", Model: "m", Endpoint: "e", PromptSHA256: "p", Summary: []byte(s)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.AddJudgeCalibration(ctx, JudgeCalibration{Gold: "support@v1", Kind: "selection", Model: "m", Endpoint: "e", PromptSHA256: "p", Summary: []byte(`{"agreement":1}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := st.JudgeCalibrations(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Kind != "selection" || string(got[1].Summary) != `{"agreement":0.9}` {
		t.Fatalf("got %+v", got)
	}
	if err := st.AddJudgeCalibration(ctx, JudgeCalibration{Gold: "g", Kind: "args", Summary: []byte(`nope`)}); err == nil || errors.Is(err, ErrConflict) {
		t.Fatalf("invalid summary: %v", err)
	}
}
