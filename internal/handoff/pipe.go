package handoff

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// ErrFull says the reader fell further behind the writer than the pipe's
// bound: the trace ends at the last generation the pipe held whole.
var ErrFull = errors.New("the trace parser fell behind the runtime's trace")

// headerLen is the length of a trace's header ("go 1.N trace", padded).
const headerLen = 16

// minBuf is the smallest generation buffer: the largest batch.
const minBuf = 64 << 10

// keepFree is the most buffers kept for reuse: with the one being written
// and the one being read, enough for a parser that takes a generation
// while the next is written, and one more while it lags.
const keepFree = 2

// queueCap is the queue's first capacity: generations waiting for a
// reader one or two behind.
const queueCap = 4

// spareGens is how many generations in a row may leave a free buffer
// unused before the free buffers are let go: a reader that keeps up needs
// only the buffer being written and the one it reads, and a spare left
// from a lag (a new trace's first generations, parsed while the next are
// written) would otherwise be held for good. It is long enough that a
// reader lagging every few generations keeps its spare.
const spareGens = 8

// sizeWindow is how many generations the sizer's peak covers at least:
// about a minute, longer than the collector's cycle in an idle program
// (each stack scan adds events), so that a buffer let go between two
// cycles is not grown again at each.
const sizeWindow = 64

// Pipe is the hand-off. Write, Close, CloseWithError and Wait are the
// writer's; Header, NextGeneration, Read, CloseRead and Done the
// reader's, which uses either NextGeneration or Read, not both. All may be
// called from any goroutine, but Done from the reader's own.
type Pipe struct {
	max int

	mu      sync.Mutex
	cond    sync.Cond // signalled when the queue, the header or an end changes
	header  []byte
	cur     []byte   // the generation being written
	queue   [][]byte // complete generations, oldest first
	queued  int      // bytes in queue
	free    [][]byte // buffers to reuse
	spare   int      // takes in a row that left a free buffer unused
	end     error    // the trace's end for the reader: io.EOF, the writer's error, or ErrFull
	rerr    error    // the reader's end: writes fail with it
	dropped int64
	made    int             // buffers allocated or grown for generations
	out     []byte          // the generation the reader holds: NextGeneration's last
	pages   *pageSet        // buffers whose pages are their own (pages.go)
	unmap   runtime.Cleanup // unmaps pages once the pipe is garbage; Done stops it
	size    sizer
	between func() // set by Between, run by the reader in NextGeneration

	// Read's position, the reader's own
	rhdr   int
	rpiece []byte
	roff   int
}

// New returns a pipe that holds at most maxBytes of trace beyond the
// generation its reader has taken, unless that is one generation; 0 means
// no bound.
func New(maxBytes int) *Pipe {
	// The lists are sized once: growing them as a lagging reader first
	// lets buffers pile up would allocate in a steady trace.
	p := &Pipe{max: maxBytes, free: make([][]byte, 0, keepFree), queue: make([][]byte, 0, queueCap)}
	p.cond.L = &p.mu
	return p
}

// Write copies b into the pipe: the header, a batch or the end of a
// generation, as the runtime's trace writer writes them (anything else
// is handed to the reader as it comes). It never waits for the reader.
// Past the pipe's bound, it drops b and every later write, and returns an
// error wrapping ErrFull; after the reader's end, it returns its error.
func (p *Pipe) Write(b []byte) (int, error) {
	n := len(b)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.writeErr(); err != nil {
		p.dropped += int64(n)
		return 0, err
	}
	if h := headerLen - len(p.header); h > 0 {
		if p.header == nil {
			p.header = make([]byte, 0, headerLen)
		}
		h = min(h, len(b))
		p.header = append(p.header, b[:h]...)
		b = b[h:]
		if len(p.header) == headerLen {
			p.cond.Broadcast()
		}
	}
	if len(b) == 0 {
		return n, nil
	}
	if p.max > 0 && len(p.queue) > 0 && p.queued+len(p.cur)+len(b) > p.max {
		p.dropped += int64(len(p.cur) + len(b))
		p.end = fmt.Errorf("%w: %d generations (%d MiB) waited for it and the next came; the rest of the trace is dropped",
			ErrFull, len(p.queue), p.queued>>20)
		p.recycle(p.cur)
		p.cur = nil
		p.cond.Broadcast()
		return 0, p.end
	}
	if p.cur == nil {
		p.cur = p.take()
	}
	// A generation larger than the recent ones doubles the buffer
	// (recycle lets go of a buffer the generations do not grow into).
	p.cur = p.grow(p.cur, len(b))
	p.cur = append(p.cur, b...)
	if _, end, ok := gotrace.Batch(b); end || !ok {
		p.push()
	}
	return n, nil
}

// writeErr is why a write fails, if it does.
func (p *Pipe) writeErr() error {
	switch {
	case p.rerr != nil:
		return p.rerr
	case p.end != nil && errors.Is(p.end, ErrFull):
		return p.end
	case p.end != nil:
		return io.ErrClosedPipe
	}
	return nil
}

// push hands the generation written to the reader.
func (p *Pipe) push() {
	p.queue = append(p.queue, p.cur)
	p.queued += len(p.cur)
	p.size.add(len(p.cur))
	p.cur = nil
	p.cond.Broadcast()
}

// take returns a buffer for a new generation: a free one large enough for
// the recent generations, else a new one. Free buffers left unused by
// spareGens takes in a row are let go.
func (p *Pipe) take() []byte {
	peak := p.size.peak()
	for len(p.free) > 0 {
		b := p.free[len(p.free)-1]
		p.free[len(p.free)-1] = nil
		p.free = p.free[:len(p.free)-1]
		if cap(b) >= peak {
			p.trimSpare()
			return b
		}
		p.letGo(b)
	}
	p.spare = 0
	return p.newBuf(bufSize(peak))
}

// trimSpare counts a take that left a free buffer unused, and lets the
// free buffers go after spareGens in a row.
func (p *Pipe) trimSpare() {
	if len(p.free) == 0 {
		p.spare = 0
		return
	}
	if p.spare++; p.spare >= spareGens {
		for _, b := range p.free {
			p.letGo(b)
		}
		clear(p.free)
		p.free, p.spare = p.free[:0], 0
	}
}

// bufSize is the capacity of a new buffer for generations of up to peak
// bytes: a quarter more, so that one a little larger than the recent ones
// does not grow it.
func bufSize(peak int) int { return max(peak+peak/4, minBuf) }

// recycle keeps b for reuse, unless enough are kept or it is more than
// twice what take would make for the recent generations (a burst does not
// hold its memory for good).
func (p *Pipe) recycle(b []byte) {
	if b == nil || p.rerr != nil || len(p.free) >= keepFree || cap(b) > 2*bufSize(p.size.peak()) {
		p.letGo(b)
		return
	}
	p.free = append(p.free, b[:0])
}

// Close ends the trace: the reader gets what was written, then io.EOF (a
// generation cut short is handed over as it is, for the reader to say so).
func (p *Pipe) Close() error {
	p.CloseWithError(nil)
	return nil
}

// CloseWithError ends the trace with err (io.EOF if nil): the reader gets
// the complete generations written, then err. The first end counts.
func (p *Pipe) CloseWithError(err error) {
	if err == nil {
		err = io.EOF
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.end == nil && p.rerr == nil {
		if len(p.cur) > 0 && err == io.EOF {
			p.push()
		}
		p.recycle(p.cur)
		p.cur = nil
		p.end = err
	}
	p.cond.Broadcast()
}

// CloseRead ends the reader's side: later writes fail with err
// (io.ErrClosedPipe if nil) and keep nothing, a waiting writer or reader
// returns, and the pipe lets its buffers go.
func (p *Pipe) CloseRead(err error) {
	if err == nil {
		err = io.ErrClosedPipe
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.rerr == nil {
		p.rerr = err
	}
	p.letGo(p.cur)
	for _, b := range p.queue {
		p.letGo(b)
	}
	for _, b := range p.free {
		p.letGo(b)
	}
	p.cur, p.queue, p.free, p.queued = nil, nil, nil, 0
	p.cond.Broadcast()
}

// Done ends the reader's side as CloseRead(err) does, from the reader's
// own goroutine once it reads nothing the pipe handed it: the pipe then
// also lets go of the generation the reader holds (NextGeneration's
// last, or Read's), which CloseRead, called from anywhere, must leave to
// the reader. After Done the pipe holds no buffer.
func (p *Pipe) Done(err error) {
	p.CloseRead(err)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.letGo(p.out)
	p.out, p.rpiece, p.roff = nil, nil, 0
	p.pagesGone()
}

// Wait waits until fewer than n complete generations wait for the reader,
// or the pipe has ended; it returns the reader's end, if it has ended. A
// writer of its own that can wait (a flight recorder's feed) calls it
// before each write, so that the pipe holds at most n generations.
func (p *Pipe) Wait(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.queue) >= n && p.rerr == nil && p.end == nil {
		p.cond.Wait()
	}
	return p.rerr
}

// Header waits for the trace's header and returns it; io.EOF if the trace
// ended before.
func (p *Pipe) Header() ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.header) < headerLen {
		switch {
		case p.rerr != nil:
			return nil, p.rerr
		case p.end != nil && len(p.header) > 0:
			return nil, io.ErrUnexpectedEOF
		case p.end != nil:
			return nil, p.end
		}
		p.cond.Wait()
	}
	return p.header, nil
}

// NextGeneration waits for the next complete generation and returns it:
// its batches through its end-of-generation byte, in a buffer the reader
// may read until its next call. It takes back done, the generation
// returned before (nil the first time), for reuse. After the last, it
// returns io.EOF or the error that ended the trace.
func (p *Pipe) NextGeneration(done []byte) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.recycle(done)
	p.out = nil
	for len(p.queue) == 0 || p.between != nil {
		if fn := p.between; fn != nil {
			p.between = nil
			p.unlocked(fn)
			continue
		}
		switch {
		case p.rerr != nil:
			return nil, p.rerr
		case p.end != nil:
			return nil, p.end
		}
		p.cond.Wait()
	}
	g := p.queue[0]
	copy(p.queue, p.queue[1:])
	p.queue[len(p.queue)-1] = nil
	p.queue = p.queue[:len(p.queue)-1]
	p.queued -= len(g)
	p.out = g
	p.cond.Broadcast() // a writer may be waiting for room
	return g, nil
}

// unlocked calls fn without the lock, which it holds again when fn
// returns or panics (NextGeneration's deferred unlock then unlocks it).
func (p *Pipe) unlocked(fn func()) {
	p.mu.Unlock()
	defer p.mu.Lock()
	fn()
}

// Between has the reader call fn between two generations, once: in
// NextGeneration, at once if the reader waits there, else at its next
// call, before it takes a generation. fn runs on the reader's goroutine,
// where the parse of every generation taken before has ended: work that
// must not race the parser, done while the reader would wait (a profiler
// that stops writes out what it can while the runtime stops its tracer).
// A later call replaces an fn not run yet.
func (p *Pipe) Between(fn func()) {
	p.mu.Lock()
	p.between = fn
	p.mu.Unlock()
	p.cond.Broadcast()
}

// Read reads the trace as a stream: the header, then the generations. It
// copies again; NextGeneration does not.
func (p *Pipe) Read(b []byte) (int, error) {
	if p.rhdr < headerLen {
		h, err := p.Header()
		if err != nil {
			return 0, err
		}
		n := copy(b, h[p.rhdr:])
		p.rhdr += n
		return n, nil
	}
	for p.roff == len(p.rpiece) {
		g, err := p.NextGeneration(p.rpiece)
		p.rpiece, p.roff = g, 0
		if err != nil {
			return 0, err
		}
	}
	n := copy(b, p.rpiece[p.roff:])
	p.roff += n
	return n, nil
}

// Dropped returns how many bytes of trace the pipe dropped: past its
// bound, or written after its reader's end.
func (p *Pipe) Dropped() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.dropped
}

// Buffers counts the buffers the pipe has allocated for generations, or
// grown: one more is a generation larger than the buffers at hand (a
// steady trace, once its largest generation has passed, makes none).
func (p *Pipe) Buffers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.made
}

// sizer follows the generations' sizes: its peak is the largest of the
// last sizeWindow to 2*sizeWindow generations.
type sizer struct{ cur, prev, n int }

func (s *sizer) add(n int) {
	s.cur = max(s.cur, n)
	if s.n++; s.n == sizeWindow {
		s.prev, s.cur, s.n = s.cur, 0, 0
	}
}

func (s *sizer) peak() int { return max(s.cur, s.prev) }
