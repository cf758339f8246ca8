package store

import (
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Trace bodies (the canonical JSON of a trace's messages) are stored as
// zstd frames in traces.body: JSON text compresses several times, and the
// traces table is most of a store's size. Rows written before migration
// 0010 hold the JSON in traces.messages instead (body NULL).

var (
	bodyEncoder = sync.OnceValue(func() *zstd.Encoder {
		// EncodeAll is safe for concurrent use; one encoder serves all.
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
			zstd.WithLowerEncoderMem(true), zstd.WithZeroFrames(true))
		if err != nil {
			panic(err) // only for invalid options, which these are not
		}
		return e
	})
	bodyDecoder = sync.OnceValue(func() *zstd.Decoder {
		d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true))
		if err != nil {
			panic(err)
		}
		return d
	})
)

// compressBody returns the stored form of a trace's messages JSON.
func compressBody(messages []byte) []byte {
	return bodyEncoder().EncodeAll(messages, make([]byte, 0, len(messages)/3+16))
}

// traceMessagesJSON returns a stored trace's messages JSON from its two
// columns: the zstd body when set, else the plain messages text.
func traceMessagesJSON(messages, body []byte) ([]byte, error) {
	if body == nil {
		return messages, nil
	}
	out, err := bodyDecoder().DecodeAll(body, make([]byte, 0, len(body)*4))
	if err != nil {
		return nil, fmt.Errorf("stored trace body is damaged: %w", err)
	}
	return out, nil
}
