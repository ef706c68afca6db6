package sampler

import (
	"github.com/gotachyon/profiler/internal/chunked"
	"github.com/gotachyon/profiler/tachyon"
)

// records holds the trace backend's goroutine records by number
// (tgor.slot, from one), which the source carries on their transitions
// (source.SetUser). The zero records is empty and ready.
//
// Records lie in chunks that are never moved or given back until release:
// a record keeps its address and its number while its goroutine lives, and
// an ended goroutine's record and number go to the next new one. As the
// reader's own table (gotrace) and the runtime's list of goroutines do, the
// chunks stay at the most goroutines that ever lived at once, so that
// goroutines that come and go in bursts do not make them again at each; in
// return a record costs its size alone, with no pointer to it kept beside
// it. A record holds no pointer, its sink handle included (a number:
// emitter.out), and its chunks lie off the Go heap (chunked.Array.Mapped),
// where the collector neither scans them nor lets the heap grow by their
// size.
type records struct {
	recs chunked.Array[tgor] // every record made: numbers given out, less one
	free []uint32            // numbers of ended goroutines, for the next new ones
	live int                 // live records
	// labels holds the label sets of the records that have one
	// (fLabeled), by number less one, in chunks of chunked.Chunk made
	// when a record in them is first given one; nil for the others.
	// Numbers are dense, and a service's goroutines of a request each
	// have one (their creation site), so that the chunks cost less than
	// a map; and a program whose goroutines parked before the profile
	// have none pays for the chunks of those created since, not for
	// every number below the highest labelled.
	labels []*[chunked.Chunk]*labelSet
}

// labelsOf returns g's label set, nil if none.
func (r *records) labelsOf(g *tgor) *labelSet {
	if !g.has(fLabeled) {
		return nil
	}
	i := g.slot - 1
	return r.labels[i/chunked.Chunk][i%chunked.Chunk]
}

// setLabels makes ls, nil for none, g's label set.
func (r *records) setLabels(g *tgor, ls *labelSet) {
	i := g.slot - 1
	switch {
	case ls != nil:
		c := int(i / chunked.Chunk)
		if c >= len(r.labels) {
			r.labels = append(r.labels, make([]*[chunked.Chunk]*labelSet, c+1-len(r.labels))...)
		}
		if r.labels[c] == nil {
			r.labels[c] = new([chunked.Chunk]*labelSet)
		}
		r.labels[c][i%chunked.Chunk] = ls
		g.set(fLabeled)
	case g.has(fLabeled):
		r.labels[i/chunked.Chunk][i%chunked.Chunk] = nil
		g.unset(fLabeled)
	}
}

// at returns the live record numbered n, nil if none is.
func (r *records) at(n uint32) *tgor {
	if n == 0 || n > r.made() {
		return nil
	}
	if g := r.rec(n - 1); g.slot != 0 {
		return g
	}
	return nil
}

// made returns how many numbers were given out, live or free.
func (r *records) made() uint32 { return r.recs.Len() }

// rec returns record i (number i+1), live or not.
func (r *records) rec(i uint32) *tgor { return r.recs.At(i) }

// add returns a new record, zero but for its number.
func (r *records) add() *tgor {
	var i uint32
	if n := len(r.free); n > 0 {
		i = r.free[n-1] - 1
		r.free = r.free[:n-1]
	} else {
		r.recs.Mapped = true
		i = r.recs.Grow()
	}
	g := r.rec(i)
	g.slot = i + 1
	r.live++
	return g
}

// remove gives g's record and number back: g is zero afterwards.
func (r *records) remove(g *tgor) {
	r.setLabels(g, nil)
	r.free = append(r.free, g.slot)
	*g = tgor{}
	r.live--
}

// all yields every live record in the order of their numbers.
func (r *records) all(yield func(*tgor) bool) {
	for i := range r.made() {
		if g := r.rec(i); g.slot != 0 && !yield(g) {
			return
		}
	}
}

// release gives back the records' chunks, off the heap, and drops every
// record: the records are empty and ready again. No record may be used
// after.
func (r *records) release() {
	r.recs.Release()
	*r = records{recs: r.recs}
}

// track returns g as the emitter sees it; untrack keeps what the emitter
// changed of it.
func (tb *traceBackend) track(g *tgor) track {
	return track{id: g.id, h: g.h, last: tb.nums.at(g.lastNo)}
}

// untrack keeps t, g's track, in g's record.
func (tb *traceBackend) untrack(g *tgor, t *track) {
	g.h = t.h
	g.lastNo = tb.nums.num(t.last)
}

// write is emitter.write for g, or with end set emitter.writeFlush. The
// emitter gives g a handle if it has none, and may change its latest
// stack, nothing else.
func (tb *traceBackend) write(g *tgor, sp span, st tachyon.Status, s *stack, end bool) {
	t := track{id: g.id, h: g.h, last: tb.nums.at(g.lastNo)}
	was := t.last
	if end {
		tb.em.writeFlush(&t, sp, st, s)
	} else {
		tb.em.write(&t, sp, st, s)
	}
	g.h = t.h
	if t.last != was {
		g.lastNo = tb.nums.num(t.last)
	}
}

// flushSink is emitter.flush for g.
func (tb *traceBackend) flushSink(g *tgor) {
	tb.em.flush(g.h)
}

// releaseRecords gives back the goroutines' records, which lie off the
// heap, once the backend is done with them: no record may be used after.
func (tb *traceBackend) releaseRecords() {
	clear(tb.active)
	tb.active = tb.active[:0]
	clear(tb.unattached)
	tb.recs.release()
}
