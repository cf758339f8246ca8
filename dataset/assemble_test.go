package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"
)

func TestAssembleJoinsManyChunksInIDOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		width int
	}{
		{"none", 0, 10},
		{"one line", 1, 10},
		{"one line longer than a chunk", 1, contentPartSize + 3},
		{"several parts", 3000, 4000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := make([]Line, tc.n)
			for i := range lines {
				// Reverse id order, so Assemble has to sort.
				id := fmt.Sprintf("it_%016x", tc.n-i)
				lines[i] = Line{ID: id, Parts: [][]byte{append([]byte(`{"id":"`+id+`","pad":"`), bytes.Repeat([]byte{'a' + byte(i%26)}, tc.width)...)}}
			}
			var want bytes.Buffer
			for i := tc.n - 1; i >= 0; i-- {
				want.Write(lines[i].Bytes())
				want.WriteByte('\n')
			}
			c, err := Assemble(lines)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(want.Bytes())
			if !bytes.Equal(c.Bytes(), want.Bytes()) || c.Size != want.Len() || c.SHA256() != hex.EncodeToString(sum[:]) {
				t.Fatalf("assembled %d bytes (sha256 %s), want %d bytes in id order", len(c.Bytes()), c.SHA256(), want.Len())
			}
			// Written, or part by part as the store compresses it: the
			// same bytes.
			var written bytes.Buffer
			if n, err := c.WriteTo(&written); err != nil || n != int64(want.Len()) || !bytes.Equal(written.Bytes(), want.Bytes()) {
				t.Fatalf("WriteTo wrote %d bytes (%v), want the %d assembled", n, err, want.Len())
			}
			var parts []byte
			for i := range c.NumParts() {
				part := c.AppendPart(i, nil)
				if len(part) > contentPartSize+tc.width+100 || len(part) == 0 || part[len(part)-1] != '\n' {
					t.Fatalf("part %d of %d: %d bytes", i, c.NumParts(), len(part))
				}
				parts = append(parts, part...)
			}
			if !bytes.Equal(parts, want.Bytes()) || tc.n*tc.width > 2*contentPartSize && c.NumParts() < 2 {
				t.Fatalf("%d parts join to %d bytes, want %d", c.NumParts(), len(parts), want.Len())
			}
			if len(c.Hashes) != tc.n {
				t.Fatalf("%d record hashes, want %d", len(c.Hashes), tc.n)
			}
			for _, l := range c.Lines {
				if c.Hashes[l.ID] != RecordHash(l.Bytes()) {
					t.Fatalf("record hash of %s is not the hash of its line", l.ID)
				}
			}
		})
	}
}
