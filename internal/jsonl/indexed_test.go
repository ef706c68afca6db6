package jsonl

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

// TestIndexedSameAsEncoder: IndexedEncoder writes byte for byte what
// Encoder writes, for names JSON must escape (quotes, control characters,
// HTML characters, invalid UTF-8, U+2028) and empty stacks.
func TestIndexedSameAsEncoder(t *testing.T) {
	frames := []tachyon.Frame{
		{File: "main.go", Func: "main.main", Line: 12},
		{File: `a"b\c.go`, Func: "f\x00\x1f\t\n<&>", Line: -1},
		{File: "\xff\xfe", Func: "\u2028\u2029é", Line: 1 << 30},
		{},
	}
	samples := []struct {
		s     Sample
		stack []uint32
	}{
		{Sample{ThreadID: 1, TimestampUS: 5}, []uint32{0, 1, 2, 3}},
		{Sample{ThreadID: 1<<64 - 1, InterpreterID: 1<<32 - 1, TimestampUS: 1<<64 - 1, Status: 255}, nil},
		{Sample{ThreadID: 7, Status: 3}, []uint32{2, 2, 0}},
	}
	var want, got bytes.Buffer
	std := NewEncoder(&want)
	ix := NewIndexedEncoder(&got, len(frames), func(i uint32) tachyon.Frame { return frames[i] })
	for _, c := range samples {
		s := c.s
		for _, i := range c.stack {
			s.Stack = append(s.Stack, frames[i])
		}
		if err := std.Encode(&s); err != nil {
			t.Fatal(err)
		}
		if err := ix.Encode(&c.s, c.stack); err != nil {
			t.Fatal(err)
		}
	}
	if err := ix.Flush(); err != nil {
		t.Fatal(err)
	}
	if got.String() != want.String() {
		t.Errorf("IndexedEncoder wrote\n%s\nEncoder wrote\n%s", got.String(), want.String())
	}
}

// TestIndexedMaxBytes: past MaxBytes, Encode fails with ErrMaxBytes and
// what was written stays within it, even inside one long line.
func TestIndexedMaxBytes(t *testing.T) {
	long := tachyon.Frame{File: "f.go", Func: strings.Repeat("x", 1<<20)}
	var out bytes.Buffer
	ix := NewIndexedEncoder(&out, 1, func(uint32) tachyon.Frame { return long })
	ix.MaxBytes = 3 << 20
	stack := make([]uint32, 100)
	err := ix.Encode(&Sample{ThreadID: 1}, stack)
	if !errors.Is(err, ErrMaxBytes) {
		t.Fatalf("Encode past MaxBytes: %v, want ErrMaxBytes", err)
	}
	ix.Flush()
	if out.Len() > 3<<20 {
		t.Errorf("wrote %d bytes, MaxBytes is %d", out.Len(), 3<<20)
	}
}

// BenchmarkIndexedEncode: a 30-frame sample line from cached frames.
func BenchmarkIndexedEncode(b *testing.B) {
	frames := make([]tachyon.Frame, 30)
	stack := make([]uint32, 30)
	for i := range frames {
		frames[i] = tachyon.Frame{File: "/src/service/handler.go", Func: "service.(*Handler).serveStep", Line: int32(100 + i)}
		stack[i] = uint32(i)
	}
	var out bytes.Buffer
	ix := NewIndexedEncoder(&out, len(frames), func(i uint32) tachyon.Frame { return frames[i] })
	s := Sample{ThreadID: 42, TimestampUS: 1_700_000_000_000_000, Status: 1}
	b.ReportAllocs()
	for b.Loop() {
		if out.Len() > 64<<20 {
			out.Reset()
		}
		if err := ix.Encode(&s, stack); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
