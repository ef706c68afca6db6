package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gotachyon/profiler/tachyon"
)

// ErrMaxBytes is returned by IndexedEncoder.Encode when a line would take
// the output past its MaxBytes.
var ErrMaxBytes = errors.New("output limit reached")

var comma, lineEnd = []byte(","), []byte("]}\n")

// maxCached bounds the bytes of encoded frames an IndexedEncoder keeps;
// frames met once the budget is spent are encoded at each use.
const maxCached = 256 << 20

// An IndexedEncoder writes the same lines as Encoder for samples whose
// stacks are indexes into a frame table, encoding each distinct frame once:
// a profile names few frames many times. Lines are streamed: a line's size
// is not bounded by memory.
type IndexedEncoder struct {
	// MaxBytes, if positive, bounds the bytes written: Encode returns
	// ErrMaxBytes instead of passing it, possibly within a line.
	MaxBytes int64

	w      *bufio.Writer
	frame  func(i uint32) tachyon.Frame
	cache  [][]byte // encoded frames by index; nil until first used
	cached int
	head   []byte
	n      int64 // bytes written
}

// NewIndexedEncoder returns an encoder writing to w, for samples naming
// frames 0..frames-1, which frame returns.
func NewIndexedEncoder(w io.Writer, frames int, frame func(i uint32) tachyon.Frame) *IndexedEncoder {
	return &IndexedEncoder{w: bufio.NewWriterSize(w, 256<<10), frame: frame, cache: make([][]byte, frames)}
}

// Encode writes one line: s's fields but its Stack, then stack's frames.
func (e *IndexedEncoder) Encode(s *Sample, stack []uint32) error {
	e.head = e.appendHead(e.head[:0], s)
	if err := e.write(e.head); err != nil {
		return err
	}
	for k, i := range stack {
		if k > 0 {
			if err := e.write(comma); err != nil {
				return err
			}
		}
		b, err := e.encoded(i)
		if err != nil {
			return err
		}
		if err := e.write(b); err != nil {
			return err
		}
	}
	return e.write(lineEnd)
}

// Flush writes any buffered data to the underlying writer.
func (e *IndexedEncoder) Flush() error { return e.w.Flush() }

// appendHead appends s's line up to its first frame, keys in schema order.
func (e *IndexedEncoder) appendHead(b []byte, s *Sample) []byte {
	b = append(b, `{"thread_id":`...)
	b = strconv.AppendUint(b, s.ThreadID, 10)
	b = append(b, `,"interpreter_id":`...)
	b = strconv.AppendUint(b, uint64(s.InterpreterID), 10)
	b = append(b, `,"timestamp_us":`...)
	b = strconv.AppendUint(b, s.TimestampUS, 10)
	b = append(b, `,"status":`...)
	b = strconv.AppendUint(b, uint64(s.Status), 10)
	return append(b, `,"stack":[`...)
}

// encoded returns frame i as Stack.MarshalJSON writes it.
func (e *IndexedEncoder) encoded(i uint32) ([]byte, error) {
	if int(i) < len(e.cache) && e.cache[i] != nil {
		return e.cache[i], nil
	}
	b, err := marshalFrame(e.frame(i))
	if err != nil {
		return nil, fmt.Errorf("frame %d: %w", i, err)
	}
	if int(i) < len(e.cache) && e.cached+len(b) <= maxCached {
		e.cache[i], e.cached = b, e.cached+len(b)
	}
	return b, nil
}

// write writes b within MaxBytes.
func (e *IndexedEncoder) write(b []byte) error {
	if e.MaxBytes > 0 && e.n+int64(len(b)) > e.MaxBytes {
		return ErrMaxBytes
	}
	e.n += int64(len(b))
	_, err := e.w.Write(b)
	return err
}
