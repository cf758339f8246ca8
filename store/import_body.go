package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
)

// Trace bodies (the canonical JSON of a trace's messages) are stored as
// zstd frames in traces.body: JSON text compresses several times, and the
// traces table is most of a store's size. Rows written before migration
// 0010 hold the JSON in traces.messages instead (body NULL).
//
// One body is small (a few kB), and alone it compresses about 2:1. The
// bodies of one log share most of their text (system prompts, tool
// results' shapes), so an import compresses them with a dictionary: the
// first bodyDictSize bytes of its bodies, stored once in body_dicts (see
// migration 0016). A frame names its dictionary by id in its header; frames
// without one (small imports, single inserts, older rows) need none.

var (
	bodyEncoder = sync.OnceValue(func() *zstd.Encoder {
		// EncodeAll is safe for concurrent use; one encoder per encoding
		// lane of an import.
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(encodeWorkers),
			zstd.WithLowerEncoderMem(true), zstd.WithZeroFrames(true))
		if err != nil {
			panic(err) // only for invalid options, which these are not
		}
		return e
	})
	// plainBodyDecoder reads frames that name no dictionary.
	plainBodyDecoder = sync.OnceValue(func() *zstd.Decoder { return newBodyDecoder(nil) })
)

// bodyDictSize is how many bytes of an import's first bodies make its
// dictionary; an import with fewer bytes of bodies gets none.
const bodyDictSize = 64 << 10

// compressBody returns the stored form of a trace's messages JSON, without
// a dictionary.
func compressBody(messages []byte) []byte {
	return bodyEncoder().EncodeAll(messages, make([]byte, 0, len(messages)/3+16))
}

// bodyDict is one row of body_dicts.
type bodyDict struct {
	id   uint32
	dict []byte
}

func newBodyDecoder(dicts []bodyDict) *zstd.Decoder {
	opts := []zstd.DOption{zstd.WithDecoderConcurrency(0), zstd.WithDecoderLowmem(true)}
	for _, d := range dicts {
		opts = append(opts, zstd.WithDecoderDictRaw(d.id, d.dict))
	}
	dec, err := zstd.NewReader(nil, opts...)
	if err != nil {
		panic(err) // only for invalid options, which these are not
	}
	return dec
}

// bodyDecoders holds a Store's decoder of trace bodies: the plain one until
// a body names a dictionary, then one that knows every dictionary stored
// when it was made (made again when a body names a newer one).
type bodyDecoders struct {
	mu  sync.Mutex // held while loading dictionaries
	dec atomic.Pointer[zstd.Decoder]
}

// traceMessagesJSON returns a stored trace's messages JSON from its two
// columns: the zstd body when set, else the plain messages text.
func (s *Store) traceMessagesJSON(ctx context.Context, messages, body []byte) ([]byte, error) {
	if body == nil {
		return messages, nil
	}
	dec := s.bodies.dec.Load()
	if dec == nil {
		dec = plainBodyDecoder()
	}
	size := len(body) * 4
	if h := (zstd.Header{}); h.Decode(body) == nil && h.HasFCS && h.FrameContentSize <= uint64(64*len(body)+1<<16) {
		// EncodeAll writes the size: one allocation (not trusted beyond
		// what a damaged header could make us allocate for nothing).
		size = int(h.FrameContentSize)
	}
	out, err := dec.DecodeAll(body, make([]byte, 0, size))
	if errors.Is(err, zstd.ErrUnknownDictionary) {
		// A failed load (a cancelled read, a busy file) is not damage.
		if dec, err = s.loadBodyDicts(ctx, dec); err != nil {
			return nil, s.wrap("read", err)
		}
		out, err = dec.DecodeAll(body, make([]byte, 0, size))
	}
	if err != nil {
		return nil, fmt.Errorf("stored trace body is damaged: %w", err)
	}
	return out, nil
}

// loadBodyDicts makes a decoder that knows every stored dictionary, unless
// another goroutine did since stale was current.
func (s *Store) loadBodyDicts(ctx context.Context, stale *zstd.Decoder) (*zstd.Decoder, error) {
	s.bodies.mu.Lock()
	defer s.bodies.mu.Unlock()
	if cur := s.bodies.dec.Load(); cur != nil && cur != stale {
		return cur, nil
	}
	var dicts []bodyDict
	err := s.scanRows(ctx, func(row scanner) error {
		var d bodyDict
		if err := row.Scan(&d.id, &d.dict); err != nil {
			return err
		}
		dicts = append(dicts, d)
		return nil
	}, `SELECT id, dict FROM body_dicts ORDER BY id`)
	if err != nil {
		return nil, err
	}
	dec := newBodyDecoder(dicts)
	s.bodies.dec.Store(dec)
	return dec, nil
}

// bodyPacker compresses the bodies of one import: the first ones without a
// dictionary while it collects them, the rest with the dictionary they make
// (or with the last stored one, when that serves them as well).
type bodyPacker struct {
	s      *Store
	ctx    context.Context
	sample []byte
	ends   []int         // where each body of sample ends
	chosen bool          // a dictionary was chosen, or refused
	enc    *zstd.Encoder // with the dictionary (nil: none)
	// ready is set once chosen is, for packReady: the encoder of the
	// bodies that follow.
	ready atomic.Pointer[func([]byte) []byte]
}

// newBodyPacker returns the packer of one import's bodies.
func (s *Store) newBodyPacker(ctx context.Context) *bodyPacker {
	return &bodyPacker{s: s, ctx: ctx}
}

// pack returns the stored form of a trace's messages JSON. A nil packer
// compresses without a dictionary.
func (p *bodyPacker) pack(messages []byte) []byte {
	if p == nil {
		return compressBody(messages)
	}
	if !p.chosen {
		p.sample = append(p.sample, messages...)
		p.ends = append(p.ends, len(p.sample))
		if len(p.sample) >= bodyDictSize {
			p.chosen = true
			p.enc = p.choose()
			p.sample, p.ends = nil, nil
			packer := compressBody
			if enc := p.enc; enc != nil {
				packer = func(messages []byte) []byte {
					return enc.EncodeAll(messages, make([]byte, 0, len(messages)/4+16))
				}
			}
			p.ready.Store(&packer)
		}
	}
	if p.enc == nil {
		return compressBody(messages)
	}
	return p.enc.EncodeAll(messages, make([]byte, 0, len(messages)/4+16))
}

// packReady is pack for the bodies that follow the ones the dictionary is
// chosen from, from any goroutine: nil until it is chosen (or refused),
// when the bodies still go through pack, in the input's order.
func (p *bodyPacker) packReady(messages []byte) []byte {
	if p == nil {
		return compressBody(messages)
	}
	if packer := p.ready.Load(); packer != nil {
		return (*packer)(messages)
	}
	return nil
}

// choose returns an encoder with the last stored dictionary when it
// compresses the sample's bodies to at most half of what no dictionary
// does, else with the sample stored as a new dictionary. Nil (no
// dictionary) when the store cannot be read or written: the bodies are
// then compressed without one.
func (p *bodyPacker) choose() *zstd.Encoder {
	sample := p.sample[:bodyDictSize]
	var last bodyDict
	err := p.s.r.QueryRowContext(p.ctx, `SELECT id, dict FROM body_dicts ORDER BY id DESC LIMIT 1`).Scan(&last.id, &last.dict)
	if err == nil {
		if enc := newDictEncoder(last); enc != nil && p.serves(enc) {
			return enc
		}
	}
	sum := sha256.Sum256(sample)
	hash := hex.EncodeToString(sum[:])
	d := bodyDict{dict: sample}
	err = p.s.WithTx(p.ctx, func(tx *Tx) error {
		if _, err := tx.ExecContext(p.ctx, `INSERT INTO body_dicts(hash, dict) VALUES (?, ?) ON CONFLICT(hash) DO NOTHING`, hash, sample); err != nil {
			return err
		}
		return tx.QueryRowContext(p.ctx, `SELECT id FROM body_dicts WHERE hash = ?`, hash).Scan(&d.id)
	})
	if err != nil {
		return nil
	}
	return newDictEncoder(d)
}

// serves reports whether enc compresses the sample's bodies, one by one, to
// at most half of what no dictionary does.
func (p *bodyPacker) serves(enc *zstd.Encoder) bool {
	with, without, start := 0, 0, 0
	var buf []byte
	for _, end := range p.ends {
		buf = enc.EncodeAll(p.sample[start:end], buf[:0])
		with += len(buf)
		buf = bodyEncoder().EncodeAll(p.sample[start:end], buf[:0])
		without += len(buf)
		start = end
	}
	return 2*with <= without
}

// newDictEncoder returns an encoder of frames that use d (nil when d cannot
// serve as one).
func newDictEncoder(d bodyDict) *zstd.Encoder {
	// The dictionary does most of the work: the fastest level compresses
	// as well as the default one does with it, in a fraction of the time.
	// One encoder per encoding lane: EncodeAll takes one that is free.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(encodeWorkers),
		zstd.WithZeroFrames(true), zstd.WithEncoderDictRaw(d.id, d.dict))
	if err != nil {
		return nil
	}
	return enc
}
