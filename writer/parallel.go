package writer

import (
	"fmt"
	"runtime"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/own"
)

// Finishing says that what is written from now on is the profile's end,
// written while its program waits for it (a Stop): from the next full
// record buffer on, the writer compresses on several cores, each buffer a
// zstd frame of its own, and writes the frames in order. The file reads
// the same; its compressed stream has more frames. It does nothing
// without compression. Finishing may be called from any goroutine while
// another writes, but not beside Reset, which starts a writer that is
// not finishing.
func (w *Writer) Finishing() { w.finishing.Store(true) }

// parallel compresses full record buffers at once, each into a frame of
// its own, on goroutines of their own, and writes them in order.
type parallel struct {
	enc   *zstd.Encoder // EncodeAll's, as many at once as slots
	slots []frameJob    // a ring of buffers in flight, oldest at head
	head  int
	n     int
	free  [][]byte // record buffers compressed and written, to fill again
}

// frameJob is one buffer in flight.
type frameJob struct {
	in, out []byte
	err     error
	done    chan struct{}
}

// maxFrameJobs bounds the frames compressed at once: one goroutine
// filling buffers keeps a few compressors busy (a buffer takes several
// times longer to compress than to fill), and each holds a buffer and an
// encoder's memory.
const maxFrameJobs = 4

// newParallel returns a parallel compressor with a slot per core, at
// least two and at most maxFrameJobs.
func newParallel() (*parallel, error) {
	n := min(max(runtime.GOMAXPROCS(0), 2), maxFrameJobs)
	enc, err := zstd.NewWriter(nil, append(zstdOptions(), zstd.WithEncoderConcurrency(n))...)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	p := &parallel{enc: enc, slots: make([]frameJob, n)}
	for i := range p.slots {
		p.slots[i].done = make(chan struct{}, 1)
	}
	return p, nil
}

// flushParallel hands the record buffer to the parallel compressor, which
// it starts on the first call (ending the stream's frame, which holds
// the records before), and takes an empty buffer for the next records.
// If it cannot start, the stream goes on as before.
func (w *Writer) flushParallel() {
	if w.par == nil {
		p, err := newParallel()
		if err != nil {
			w.finishing.Store(false)
			_, err = w.zw.Write(w.buf)
			w.setErr(err)
			w.buf = w.buf[:0]
			return
		}
		w.setErr(w.zw.Close())
		w.zw.Reset(&w.cw)
		w.par = p
	}
	w.buf = w.par.submit(w, w.buf)
}

// submit starts compressing b, once a slot is free (the oldest frame
// written first), and returns a buffer to fill.
func (p *parallel) submit(w *Writer, b []byte) []byte {
	if p.n == len(p.slots) {
		p.retire(w)
	}
	j := &p.slots[(p.head+p.n)%len(p.slots)]
	j.in, j.err = b, nil
	p.n++
	// The compressing goroutine is the profiler's (package own): the
	// trace still runs while Stop writes, and its samples are left out.
	own.Go(func() { p.encode(j) })
	if k := len(p.free); k > 0 {
		next := p.free[k-1]
		p.free = p.free[:k-1]
		return next
	}
	return make([]byte, 0, BufferSize)
}

// encode compresses j.in into j.out. A panic in the compressor is j's
// error, not the program's end.
func (p *parallel) encode(j *frameJob) {
	defer func() {
		if r := recover(); r != nil {
			j.err = fmt.Errorf("zstd: panic compressing a frame: %v", r)
		}
		j.done <- struct{}{}
	}()
	j.out = p.enc.EncodeAll(j.in, j.out[:0])
}

// retire waits for the oldest frame and writes it.
func (p *parallel) retire(w *Writer) {
	j := &p.slots[p.head]
	<-j.done
	if j.err != nil {
		w.setErr(j.err)
	} else if w.err == nil {
		_, err := w.cw.Write(j.out)
		w.setErr(err)
	}
	p.free = append(p.free, j.in[:0])
	j.in = nil
	p.head = (p.head + 1) % len(p.slots)
	p.n--
}

// drain writes every frame in flight, in order.
func (p *parallel) drain(w *Writer) {
	for p.n > 0 {
		p.retire(w)
	}
}
