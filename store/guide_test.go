package store

import (
	"context"
	"errors"
	"testing"
)

func TestGuideVersions(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	if _, err := st.CurrentGuide(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty store has a guide: %v", err)
	}
	v, err := st.EnsureGuide(ctx, "g_default00000", "default", "goldtrace")
	if err != nil || v.ID != "g_default00000" || v.Seq != 1 {
		t.Fatalf("ensure: %+v %v", v, err)
	}
	if v, err = st.EnsureGuide(ctx, "g_other", "other", "x"); err != nil || v.ID != "g_default00000" {
		t.Fatalf("ensure keeps the guide in force: %+v %v", v, err)
	}
	steps := []struct {
		id, body    string
		wantChanged bool
		wantSeq     int
	}{
		{"g_v2", "v2", true, 2},
		{"g_v2", "v2", false, 2},               // same text again: nothing changes
		{"g_default00000", "default", true, 3}, // an old text comes back into force
	}
	for _, s := range steps {
		v, changed, err := st.SetGuide(ctx, s.id, s.body, "carol")
		if err != nil || changed != s.wantChanged || v.Seq != s.wantSeq || v.ID != s.id {
			t.Errorf("set %s: %+v changed=%v %v", s.id, v, changed, err)
		}
	}
	cur, err := st.CurrentGuide(ctx)
	if err != nil || cur.ID != "g_default00000" || cur.Body != "default" {
		t.Errorf("current: %+v %v", cur, err)
	}
	log, used, err := st.GuideLog(ctx)
	if err != nil || len(log) != 2 || log[0].ID != "g_default00000" || len(used) != 0 {
		t.Errorf("log: %+v %v %v", log, used, err)
	}
}
