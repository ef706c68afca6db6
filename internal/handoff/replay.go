package handoff

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// Replay writes a recorded trace into w as the runtime's trace writer
// writes a live one: the header (if trace begins with one), then each
// batch and each end of generation in a write of its own, from a buffer
// reused between writes (the runtime reuses its own once Write returns).
// It stops at the first error; bytes it cannot frame it writes whole. For
// tests and benchmarks.
func Replay(w io.Writer, trace []byte) error {
	h := 0
	if bytes.HasPrefix(trace, []byte("go 1.")) {
		h = min(len(trace), headerLen)
		if _, err := w.Write(trace[:h]); err != nil {
			return err
		}
	}
	buf := make([]byte, 0, minBuf+64)
	for d := trace[h:]; len(d) > 0; {
		n := frameLen(d)
		if n <= 0 {
			n = len(d)
		}
		buf = append(buf[:0], d[:n]...)
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
		d = d[n:]
	}
	return nil
}

// frameLen returns the length of the batch or end of generation d begins
// with, 0 if d does not begin with one whole.
func frameLen(d []byte) int {
	const endOfGeneration, eventBatch, experimentalBatch = 52, 1, 49
	i := 1
	switch d[0] {
	case endOfGeneration:
		return 1
	case eventBatch:
	case experimentalBatch:
		i = 2
	default:
		return 0
	}
	var size uint64
	for k := range 4 { // generation, thread, timestamp, size
		if i >= len(d) {
			return 0
		}
		v, n := binary.Uvarint(d[i:])
		if n <= 0 {
			return 0
		}
		i += n
		if k == 3 {
			size = v
		}
	}
	if size > uint64(len(d)-i) {
		return 0
	}
	return i + int(size)
}
