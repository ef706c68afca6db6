package testutil

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/writer"
)

// MemFile is an in-memory io.WriteSeeker for the writer; Bytes holds what
// was written.
type MemFile struct {
	Bytes []byte
	pos   int
}

// Write writes p at the current offset, growing the file as needed.
func (m *MemFile) Write(p []byte) (int, error) {
	if need := m.pos + len(p); need > len(m.Bytes) {
		m.Bytes = append(m.Bytes, make([]byte, need-len(m.Bytes))...)
	}
	copy(m.Bytes[m.pos:], p)
	m.pos += len(p)
	return len(p), nil
}

// Seek sets the offset of the next Write.
func (m *MemFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		m.pos = int(off)
	case io.SeekCurrent:
		m.pos += int(off)
	case io.SeekEnd:
		m.pos = len(m.Bytes) + int(off)
	}
	return int64(m.pos), nil
}

// RepeatedVector returns, in memory, the shared vector NAME.bin repeated
// rounds times, each round's timestamps shifted past the previous round's:
// a large realistic profile for benchmarks (realistic_50k × 20 = 1 M
// samples).
func RepeatedVector(tb testing.TB, name string, rounds int) *reader.File {
	tb.Helper()
	src, err := reader.Open(Shared(tb, "testdata", "tachyon", name+".bin"))
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	h := src.Header
	var out MemFile
	w, err := writer.New(&out, writer.Options{StartTime: h.StartTime, Interval: h.Interval})
	if err != nil {
		tb.Fatal(err)
	}
	idx := make([]uint32, len(src.FrameRefs()))
	for i := range idx {
		fr := src.Frame(uint32(i))
		idx[i] = w.Frame(writer.Frame{File: fr.File, Func: fr.Func, Line: fr.Line})
	}
	var span uint64
	var stack []uint32
	for r := range uint64(rounds) {
		it := src.Samples()
		for it.Next() {
			s := it.Sample()
			stack = stack[:0]
			for _, i := range s.Stack {
				stack = append(stack, idx[i])
			}
			if err := w.WriteStack(s.ThreadID, s.InterpreterID, s.Timestamp+r*span, s.Status, stack); err != nil {
				tb.Fatal(err)
			}
			if r == 0 {
				span = max(span, s.Timestamp-h.StartTime+h.Interval)
			}
		}
		if err := it.Err(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.Bytes)
	if err != nil {
		tb.Fatal(err)
	}
	return f
}
