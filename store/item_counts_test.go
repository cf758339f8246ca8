package store

import (
	"context"
	"maps"
	"testing"
)

func TestItemStatusCounts(t *testing.T) {
	ctx := context.Background()
	st := openTemp(t)
	item := assignTwo(t, st)
	tests := []struct {
		name  string
		batch string
		want  map[string]int
	}{
		{"all batches", "", map[string]int{"new": 1}},
		{"its batch", "b1", map[string]int{"new": 1}},
		{"another batch", "b9", map[string]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.ItemStatusCounts(ctx, tt.batch)
			if err != nil || !maps.Equal(got, tt.want) {
				t.Errorf("got %v %v, want %v", got, err, tt.want)
			}
		})
	}
	if _, err := st.SubmitLabel(ctx, callLabel(item, "alice", `{"order_id":"ORD-1"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.SubmitLabel(ctx, callLabel(item, "bob", `{"order_id":"ORD-2"}`)); err != nil {
		t.Fatal(err)
	}
	got, err := st.ItemStatusCounts(ctx, "")
	if err != nil || !maps.Equal(got, map[string]int{"disputed": 1}) {
		t.Errorf("after two different labels: %v %v", got, err)
	}
}
