package writer_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

type tsample struct {
	id     uint64
	interp uint32
	ts     uint64
	status tachyon.Status
	stack  []tachyon.Frame
}

// roundTrip writes samples and checks that every thread decodes to the same
// samples in the same order (stacks cut to MaxWriteDepth), and that the
// header counts agree.
func roundTrip(t *testing.T, start uint64, samples []tsample, opts writer.Options) *reader.File {
	t.Helper()
	for _, c := range []tachyon.Compression{tachyon.CompressionNone, tachyon.CompressionZstd} {
		var m seekbuf.Buffer
		opts.StartTime, opts.Compression = start, c
		w, err := writer.New(&m, opts)
		if err != nil {
			t.Fatal(err)
		}
		want := map[[2]uint64][]tsample{}
		for _, s := range samples {
			if err := w.WriteSample(&writer.Sample{ThreadID: s.id, InterpreterID: s.interp, Timestamp: s.ts, Status: s.status, Frames: s.stack}); err != nil {
				t.Fatal(err)
			}
			if len(s.stack) > tachyon.MaxWriteDepth {
				s.stack = s.stack[:tachyon.MaxWriteDepth]
			}
			k := [2]uint64{s.id, uint64(s.interp)}
			want[k] = append(want[k], s)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		f, err := reader.NewFileBytes(m.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Verify(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if int(f.Header.SampleCount) != len(samples) || int(f.Header.ThreadCount) != len(want) {
			t.Fatalf("header %d samples %d threads, want %d, %d", f.Header.SampleCount, f.Header.ThreadCount, len(samples), len(want))
		}
		pos := map[[2]uint64]int{}
		it := f.Samples()
		for it.Next() {
			s := it.Sample()
			k := [2]uint64{s.ThreadID, uint64(s.InterpreterID)}
			i := pos[k]
			pos[k]++
			if i >= len(want[k]) {
				t.Fatalf("thread %v: extra sample", k)
			}
			ws := want[k][i]
			if s.Timestamp != ws.ts || s.Status != ws.status {
				t.Fatalf("thread %v sample %d: ts %d status %d, want %d %d", k, i, s.Timestamp, s.Status, ws.ts, ws.status)
			}
			got := it.Frames(nil)
			if len(got) != len(ws.stack) {
				t.Fatalf("thread %v sample %d: depth %d, want %d", k, i, len(got), len(ws.stack))
			}
			for j := range got {
				if got[j] != tachyon.Frame(ws.stack[j]) {
					t.Fatalf("thread %v sample %d frame %d: %v, want %v", k, i, j, got[j], ws.stack[j])
				}
			}
		}
		if err := it.Err(); err != nil {
			t.Fatal(err)
		}
		if c == tachyon.CompressionZstd {
			return f
		}
	}
	return nil
}

// randomStream makes n samples over threads threads with random stack
// changes; ids, interpreter ids and timestamps reach the top of their
// ranges, stacks reach 300 frames and are sometimes empty.
func randomStream(seed uint64, threads, n int, start uint64) []tsample {
	rng := rand.New(rand.NewPCG(seed, 1))
	frame := func() tachyon.Frame {
		i := rng.IntN(500)
		return tachyon.Frame{File: []string{"a.go", "b/c.go", "ü/ñ.go", ""}[i%4], Func: "fn" + string(rune('a'+i%26)) + string(rune('A'+i/26)), Line: int32(i*7919) - 1000}
	}
	type th struct {
		id     uint64
		interp uint32
		ts     uint64
		stack  []tachyon.Frame
	}
	ths := make([]th, threads)
	for i := range ths {
		ths[i] = th{id: math.MaxUint64 - uint64(rng.IntN(3)) - uint64(i)*(math.MaxUint64/uint64(threads)), interp: uint32(rng.IntN(3)) * (math.MaxUint32 / 2), ts: start}
	}
	out := make([]tsample, 0, n)
	for range n {
		t := &ths[rng.IntN(threads)]
		switch r := rng.IntN(10); {
		case r < 5:
		case r < 6:
			t.stack = nil
		case r < 7:
			t.stack = make([]tachyon.Frame, rng.IntN(300))
			for i := range t.stack {
				t.stack[i] = frame()
			}
		case r < 8 && len(t.stack) > 0:
			t.stack = append([]tachyon.Frame(nil), t.stack[rng.IntN(len(t.stack)):]...)
		default:
			for range rng.IntN(4) {
				t.stack = append([]tachyon.Frame{frame()}, t.stack...)
			}
		}
		// Deltas: mostly small, sometimes huge; never past 2^64-1.
		d := uint64(rng.IntN(2000))
		if rng.IntN(50) == 0 {
			d = (math.MaxUint64 - t.ts) / 4
		}
		t.ts += d
		out = append(out, tsample{id: t.id, interp: t.interp, ts: t.ts, status: tachyon.Status(rng.IntN(32)), stack: append([]tachyon.Frame(nil), t.stack...)})
	}
	return out
}

func TestRoundTripRandom(t *testing.T) {
	for seed := range uint64(8) {
		roundTrip(t, 1<<40, randomStream(seed, 1+int(seed)*5, 3000, 1<<40), writer.Options{Interval: 1000})
	}
}

// TestRoundTripManyThreads checks 10,000 threads with small pending caps, so
// that runs are flushed by the global cap, oldest first.
func TestRoundTripManyThreads(t *testing.T) {
	var samples []tsample
	stack := []tachyon.Frame{{File: "x.go", Func: "f", Line: 1}, {File: "x.go", Func: "main", Line: 2}}
	for tick := range uint64(20) {
		for g := range uint64(10000) {
			samples = append(samples, tsample{id: g, ts: 1000 + tick*10000, stack: stack})
		}
	}
	f := roundTrip(t, 1000, samples, writer.Options{MaxPendingBytes: 4096})
	if f.Header.ThreadCount != 10000 {
		t.Fatalf("threads %d", f.Header.ThreadCount)
	}
}

// TestLongRunSplits checks that an endless identical stack is written as
// several REPEAT records, each at most MaxRunBytes of pairs.
func TestLongRunSplits(t *testing.T) {
	var samples []tsample
	for i := range uint64(50000) {
		samples = append(samples, tsample{id: 7, ts: 1e6 + i*1e6, stack: []tachyon.Frame{{File: "a", Func: "b", Line: 3}}})
	}
	f := roundTrip(t, 0, samples, writer.Options{})
	it := f.Samples()
	for it.Next() {
	}
	// 50,000 pairs of 4 bytes (3-byte delta + status) need at least 13 runs.
	if n := it.Stats().Records[tachyon.Repeat]; n < 50000*4/writer.MaxRunBytes {
		t.Fatalf("%d REPEAT records; runs were not split at MaxRunBytes", n)
	}
}

func TestEdgeCases(t *testing.T) {
	deep := make([]tachyon.Frame, 1000)
	for i := range deep {
		deep[i] = tachyon.Frame{File: "d.go", Func: "rec", Line: int32(i)}
	}
	roundTrip(t, math.MaxUint64-10, []tsample{
		{id: 1, ts: math.MaxUint64 - 10},             // empty first stack
		{id: 1, ts: math.MaxUint64 - 5, stack: deep}, // cut to 256
		{id: 1, ts: math.MaxUint64, stack: deep[1:]}, // pop to a shared suffix
		{id: 1, ts: math.MaxUint64, stack: deep[1:]}, // repeat
		{id: 2, ts: math.MaxUint64, stack: deep[:2]}, // deltas at the very top
		{id: math.MaxUint64, interp: math.MaxUint32, ts: math.MaxUint64 - 10},
	}, writer.Options{})
}

// TestTimestampsClamped: a timestamp before the thread's previous one is
// recorded with delta 0 instead of wrapping.
func TestTimestampsClamped(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{StartTime: 100})
	w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: 50})
	w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: 200})
	w.WriteSample(&writer.Sample{ThreadID: 1, Timestamp: 150})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.NewFileBytes(m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	it := f.Samples()
	for it.Next() {
		got = append(got, it.Sample().Timestamp)
	}
	if len(got) != 3 || got[0] != 100 || got[1] != 200 || got[2] != 200 {
		t.Fatalf("timestamps %v, want [100 200 200]", got)
	}
}

func TestFrameIndexChecked(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{})
	i := w.Frame(tachyon.Frame{File: "a", Func: "b"})
	if err := w.WriteStack(1, 0, 0, 0, []uint32{i, i + 1}); !errors.Is(err, writer.ErrFrameIndex) {
		t.Fatalf("err %v, want ErrFrameIndex", err)
	}
}

type failWriter struct {
	seekbuf.Buffer
	after int
}

var errDisk = errors.New("disk full")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.after -= len(p); f.after < 0 {
		return 0, errDisk
	}
	return f.Buffer.Write(p)
}

// TestStickyError: the first error of the underlying writer is returned by
// later calls and by Close; a second Close says the writer is closed.
func TestStickyError(t *testing.T) {
	fw := &failWriter{after: 1000}
	w, err := writer.New(fw, writer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var werr error
	for i := range 200000 {
		werr = w.WriteSample(&writer.Sample{ThreadID: uint64(i % 100), Timestamp: uint64(i), Frames: []tachyon.Frame{{File: "f", Func: "g", Line: int32(i)}}})
		if werr != nil {
			break
		}
	}
	if !errors.Is(werr, errDisk) {
		t.Fatalf("write error %v, want %v", werr, errDisk)
	}
	if err := w.Close(); !errors.Is(err, errDisk) {
		t.Fatalf("Close: %v, want %v", err, errDisk)
	}
	if err := w.Close(); !errors.Is(err, writer.ErrClosed) {
		t.Fatalf("second Close: %v", err)
	}
}

// TestTablesPastBuffer writes tables larger than the record buffer, in
// both compressions: the tables follow the compressed records as they
// are, so a full buffer of them must go to the file, not to the closed
// compressor.
func TestTablesPastBuffer(t *testing.T) {
	var samples []tsample
	for g := range uint64(30000) {
		name := fmt.Sprintf("pkg.func%06d_%s", g, strings.Repeat("x", 24))
		samples = append(samples, tsample{id: g, ts: 1000, stack: []tachyon.Frame{{File: "f.go", Func: name, Line: int32(g)}}})
	}
	roundTrip(t, 1000, samples, writer.Options{})
}
