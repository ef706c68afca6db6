package synth

import (
	"fmt"
	"math/rand/v2"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Stream yields samples with frames already interned in a frame universe of
// its own; Frames lists that universe so a writer can intern it once.
type Stream struct {
	rng     *rand.Rand
	Frames  []tachyon.Frame
	threads []synthThread
	now     uint64
	next    int
	// Interval is the sampling interval in microseconds.
	Interval uint64
}

type synthThread struct {
	id     uint64
	stack  []uint32 // innermost first
	status tachyon.Status
}

// New returns a stream of goroutines goroutines drawing on nframes distinct
// frames, seeded by seed.
func New(seed uint64, goroutines, nframes int) *Stream {
	s := &Stream{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), now: 1_700_000_000_000_000, Interval: 1000}
	for i := range nframes {
		s.Frames = append(s.Frames, tachyon.Frame{
			File: fmt.Sprintf("/src/app/pkg%d/file%d.go", i%17, i%53),
			Func: fmt.Sprintf("example.com/app/pkg%d.Func%d", i%17, i),
			Line: int32(10 + i%400),
		})
	}
	for g := range goroutines {
		t := synthThread{id: uint64(g + 1)}
		t.stack = s.fresh(10 + s.rng.IntN(31))
		s.threads = append(s.threads, t)
	}
	return s
}

// StartTime is the stream's first timestamp, for writer.Options.
func (s *Stream) StartTime() uint64 { return 1_700_000_000_000_000 }

func (s *Stream) fresh(depth int) []uint32 {
	st := make([]uint32, depth, 64)
	for i := range st {
		st[i] = uint32(s.rng.IntN(len(s.Frames)))
	}
	return st
}

// Next returns the next sample: goroutine id, timestamp (µs), status and
// stack (innermost first, valid until the next call). Goroutines are sampled
// round-robin, one tick of Interval per round.
func (s *Stream) Next() (id, ts uint64, status tachyon.Status, stack []uint32) {
	if s.next == len(s.threads) {
		s.next = 0
		s.now += s.Interval
	}
	t := &s.threads[s.next]
	s.next++
	r := s.rng.IntN(100)
	switch {
	case r < 70: // same stack
	case r < 80 && len(t.stack) < 40: // push 1-3 frames
		for range 1 + s.rng.IntN(3) {
			t.stack = append([]uint32{uint32(s.rng.IntN(len(s.Frames)))}, t.stack...)
		}
	case r < 90 && len(t.stack) > 12: // pop 1-2 frames
		t.stack = t.stack[1+s.rng.IntN(2):]
	case r < 97: // pop and push
		k := min(len(t.stack)-1, 1+s.rng.IntN(4))
		t.stack = t.stack[k:]
		for range k {
			t.stack = append([]uint32{uint32(s.rng.IntN(len(s.Frames)))}, t.stack...)
		}
	default: // somewhere else entirely
		t.stack = s.fresh(10 + s.rng.IntN(31))
	}
	if r%7 == 0 {
		t.status = []tachyon.Status{0, 3, 8, 6}[s.rng.IntN(4)]
	}
	return t.id, s.now + uint64(s.rng.IntN(50)), t.status, t.stack
}

// Recording is a pre-generated stream held in flat arrays, so benchmarks
// measure the encoder and not the generator.
type Recording struct {
	Frames   []tachyon.Frame
	IDs      []uint64
	TS       []uint64
	Status   []tachyon.Status
	stackOff []int
	flat     []uint32
	Start    uint64
	Interval uint64
}

// Record draws n samples from a new stream.
func Record(seed uint64, goroutines, nframes, n int) *Recording {
	s := New(seed, goroutines, nframes)
	r := &Recording{Frames: s.Frames, Start: s.StartTime(), Interval: s.Interval, stackOff: make([]int, 0, n+1)}
	r.stackOff = append(r.stackOff, 0)
	for range n {
		id, ts, st, stack := s.Next()
		r.IDs = append(r.IDs, id)
		r.TS = append(r.TS, ts)
		r.Status = append(r.Status, st)
		r.flat = append(r.flat, stack...)
		r.stackOff = append(r.stackOff, len(r.flat))
	}
	return r
}

// Len returns the number of samples.
func (r *Recording) Len() int { return len(r.IDs) }

// Stack returns sample i's stack as indices into Frames.
func (r *Recording) Stack(i int) []uint32 { return r.flat[r.stackOff[i]:r.stackOff[i+1]] }

// WriteTo writes every sample to w through the fast path, interning the
// frame universe first. Frame indices equal positions in Frames because w
// is expected to be fresh.
func (r *Recording) WriteTo(w *writer.Writer) error {
	for _, f := range r.Frames {
		w.Frame(f)
	}
	for i := range r.IDs {
		if err := w.WriteStack(r.IDs[i], 0, r.TS[i], r.Status[i], r.Stack(i)); err != nil {
			return err
		}
	}
	return nil
}
