package recent

import (
	"fmt"

	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

// sim writes samples into a sink as the trace backend does: wall ticks
// every step µs; each goroutine's ticks are written in batches, a quarter
// of the goroutines each generation (a second), so that a goroutine's
// samples reach the sink up to four generations late; the watermark is
// the oldest tick not yet written. Goroutines that are "busy" change
// stack every tick; the others stay parked on one stack.
type sim struct {
	sink    sampler.Sink
	step    uint64
	now     uint64 // the next tick
	gen     uint64
	frames  []uint32
	gs      []*simG
	nextID  uint64
	written map[uint64][]span // goroutine id -> its runs written, for the checks
	record  bool
	buf     []uint32
}

type simG struct {
	id    uint64
	h     sampler.Goroutine
	due   uint64 // its first tick not written
	busy  bool
	end   uint64 // if nonzero, it ends at this tick
	wrote bool
	depth int
}

// span is a run of n samples at ts, ts+step, ...
type span struct{ ts, step, n uint64 }

func newSim(sink sampler.Sink, start, step uint64, nframes int, record bool) *sim {
	s := &sim{sink: sink, step: step, now: start, nextID: 1, written: map[uint64][]span{}, record: record}
	for i := range nframes {
		s.frames = append(s.frames, sink.Frame(tachyon.Frame{File: "app.go", Func: fmt.Sprintf("main.f%d", i), Line: int32(i + 1)}))
	}
	return s
}

// spawn adds a goroutine whose ticks start now; it ends after life ticks
// if life > 0.
func (s *sim) spawn(busy bool, life uint64) *simG {
	g := &simG{id: s.nextID, due: s.now, busy: busy, depth: 8 + int(s.nextID%8)}
	if life > 0 {
		g.end = s.now + life*s.step
	}
	s.nextID++
	s.gs = append(s.gs, g)
	return g
}

// stackOf returns goroutine g's stack at tick ts, valid until the next
// call.
func (s *sim) stackOf(g *simG, ts uint64) []uint32 {
	buf := s.buf[:0]
	k := uint64(0)
	if g.busy {
		k = ts / s.step
	}
	for i := range g.depth {
		buf = append(buf, s.frames[(g.id*7+uint64(i)*13+k*(uint64(i)%2))%uint64(len(s.frames))])
	}
	s.buf = buf
	return buf
}

// generation advances time by one generation of ticks, writes the due
// goroutines' ticks, and gives the watermark.
func (s *sim) generation(ticks uint64) {
	s.now += ticks * s.step
	s.gen++
	live := s.gs[:0]
	for _, g := range s.gs {
		endAt := s.now
		if g.end > 0 && g.end < endAt {
			endAt = g.end
		}
		if g.end > 0 && g.end <= s.now || (g.id+s.gen)%4 == 0 {
			s.write(g, endAt)
		}
		if g.end > 0 && g.end <= s.now {
			if g.h != nil {
				g.h.Forget()
			}
			continue
		}
		live = append(live, g)
	}
	clear(s.gs[len(live):])
	s.gs = live
	if wm, ok := s.sink.(sampler.Watermarker); ok {
		wm.Watermark(min(s.now, s.oldest()))
	}
}

func (s *sim) oldest() uint64 {
	o := s.now
	for _, g := range s.gs {
		o = min(o, g.due)
	}
	return o
}

// write writes g's ticks from g.due to before end.
func (s *sim) write(g *simG, end uint64) {
	if g.due >= end {
		return
	}
	if g.h == nil {
		g.h = s.sink.Goroutine(g.id)
	}
	n := (end - g.due + s.step - 1) / s.step
	if g.busy {
		for ts := g.due; ts < end; ts += s.step {
			if err := g.h.Write(ts, tachyon.StatusOf(tachyon.Running, false), s.stackOf(g, ts)); err != nil {
				panic(err)
			}
		}
	} else {
		ts := g.due
		left := n
		if !g.wrote {
			if err := g.h.Write(ts, tachyon.StatusOf(tachyon.Blocked, false), s.stackOf(g, ts)); err != nil {
				panic(err)
			}
			g.wrote = true
			ts, left = ts+s.step, left-1
		}
		if err := g.h.RepeatEvery(ts, s.step, int(left), tachyon.StatusOf(tachyon.Blocked, false)); err != nil {
			panic(err)
		}
	}
	if s.record {
		s.written[g.id] = append(s.written[g.id], span{g.due, s.step, n})
	}
	g.due += n * s.step
	g.h.Flush()
}

// expect returns how many samples written fall in [from, to).
func (s *sim) expect(from, to uint64) (samples uint64, goroutines int) {
	for _, runs := range s.written {
		var k uint64
		for _, r := range runs {
			for i := range r.n {
				if ts := r.ts + i*r.step; ts >= from && ts < to {
					k++
				}
			}
		}
		samples += k
		if k > 0 {
			goroutines++
		}
	}
	return samples, goroutines
}
