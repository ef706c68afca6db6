package writer

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/zstdrun"
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
	encs  *encoders
	slots []frameJob // a ring of buffers in flight, oldest at head
	head  int
	n     int
	free  [][]byte // record buffers compressed and written, to fill again
	freeM [][]mark // and their marks
}

// encoders are the zstd encoders the slots share for what is not a frame
// of runs: the stream's own, whose frame has ended (it sits idle while
// the end is compressed in frames of their own, and costs nothing more),
// and others made as slots would wait for one, while there are fewer
// than the cores beside the writer's. On two cores the stream's encoder
// is the only one: the writer fills buffers on one core, one encoder
// compresses on the other. An encoder made is allocated during Stop,
// where every megabyte makes a collection during Stop likelier (the
// runtime's own stop allocates its list of every goroutine), and a
// collection then scans every goroutine's stack.
type encoders struct {
	idle chan *zstd.Encoder
	mu   sync.Mutex
	made int // encoders made or being made, the stream's counted
	max  int
}

// newEncoders returns the encoders of a parallel compressor with n
// slots, the stream's zw first.
func newEncoders(zw *zstd.Encoder, n int) *encoders {
	m := max(1, min(n, runtime.GOMAXPROCS(0)-1))
	e := &encoders{idle: make(chan *zstd.Encoder, m), made: 1, max: m}
	e.idle <- zw
	return e
}

// get returns an idle encoder, a new one if none is idle and fewer than
// max were made, else the next given back.
func (e *encoders) get() (*zstd.Encoder, error) {
	select {
	case z := <-e.idle:
		return z, nil
	default:
	}
	e.mu.Lock()
	more := e.made < e.max
	if more {
		e.made++
	}
	e.mu.Unlock()
	if !more {
		return <-e.idle, nil
	}
	z, err := newEncoder(nil)
	if err != nil {
		return nil, fmt.Errorf("zstd: %w", err)
	}
	return z, nil
}

// put gives z back.
func (e *encoders) put(z *zstd.Encoder) { e.idle <- z }

// frame appends to dst one zstd frame of what write writes to the
// encoder it is given, compressed by an encoder of e's.
func (e *encoders) frame(dst []byte, write func(z *zstd.Encoder) error) ([]byte, error) {
	z, err := e.get()
	if err != nil {
		return dst, err
	}
	defer e.put(z)
	out := appendWriter{dst}
	z.Reset(&out)
	err = write(z)
	if cerr := z.Close(); err == nil {
		err = cerr
	}
	return out.b, err
}

// frameJob is one buffer in flight, in a slot of its own.
type frameJob struct {
	in, out []byte
	marks   []mark
	err     error
	// runFrames counts out's frames of runs (Stats.RunFrames)
	runFrames uint64
	done      chan struct{}
	// the slot's own, for buffers with marks (runs.go)
	runs *zstdrun.Encoder
	exp  []byte
}

// maxFrameJobs bounds the frames compressed at once: one goroutine
// filling buffers keeps a few compressors busy (a buffer takes several
// times longer to compress than to fill), and each holds a buffer and an
// encoder's memory.
const maxFrameJobs = 4

// newParallel returns a parallel compressor with a slot per core, at
// least two and at most maxFrameJobs, that shares zw, the stream's
// encoder, whose frame has ended.
func newParallel(zw *zstd.Encoder) *parallel {
	n := min(max(runtime.GOMAXPROCS(0), 2), maxFrameJobs)
	p := &parallel{encs: newEncoders(zw, n), slots: make([]frameJob, n)}
	for i := range p.slots {
		p.slots[i].done = make(chan struct{}, 1)
	}
	return p
}

// flushParallel hands the record buffer to the parallel compressor, which
// it starts on the first call (ending the stream's frame, which holds
// the records before), and takes an empty buffer for the next records.
func (w *Writer) flushParallel() {
	if w.par == nil {
		// The stream's frame ends here, empty if the records so far
		// went to frames of runs or there were none, as it always did;
		// its encoder is the slots' until they are drained.
		w.zwOpen = true
		w.setErr(w.endZstdFrame())
		w.par = newParallel(w.zw)
	}
	w.buf, w.tails = w.par.submit(w, w.buf, w.tails)
}

// submit starts compressing b with its marks, once a slot is free (the
// oldest frame written first), and returns a buffer and marks to fill.
func (p *parallel) submit(w *Writer, b []byte, marks []mark) ([]byte, []mark) {
	if p.n == len(p.slots) {
		p.retire(w)
	}
	j := &p.slots[(p.head+p.n)%len(p.slots)]
	j.in, j.marks, j.err = b, marks, nil
	p.n++
	// The compressing goroutine is the profiler's (package own): the
	// trace still runs while Stop writes, and its samples are left out.
	own.Go(func() { p.encode(j) })
	var next []byte
	if k := len(p.free); k > 0 {
		next = p.free[k-1]
		p.free = p.free[:k-1]
	} else {
		next = make([]byte, 0, BufferSize)
	}
	var nextM []mark
	if k := len(p.freeM); k > 0 {
		nextM = p.freeM[k-1]
		p.freeM = p.freeM[:k-1]
	} else if cap(marks) > 0 {
		// As many as the buffer handed over held room for: the next
		// buffer's marks are allocated once, not grown by appends.
		nextM = make([]mark, 0, cap(marks))
	}
	return next, nextM
}

// encode compresses j's buffer into j.out: one frame, or with marks a
// frame of runs or frames of its expanded pieces (runs.go). A panic in
// the compressor is j's error, not the program's end.
func (p *parallel) encode(j *frameJob) {
	defer func() {
		if r := recover(); r != nil {
			j.err = fmt.Errorf("zstd: panic compressing a frame: %v", r)
		}
		j.done <- struct{}{}
	}()
	j.out, j.runFrames = j.out[:0], 0
	if len(j.marks) == 0 {
		j.out, j.err = p.encs.frame(j.out, func(z *zstd.Encoder) error {
			_, err := z.Write(j.in)
			return err
		})
		return
	}
	m := marked{j.in, j.marks}
	j.err = m.segments(func(lo, hi, end int) error {
		if j.runs == nil {
			j.runs = zstdrun.New()
		}
		j.runFrames++
		out := appendWriter{j.out}
		err := m.encodeRuns(j.runs, &out, lo, hi, end)
		j.out = out.b
		return err
	}, func(lo, hi, end int) error {
		// The rest, expanded in pieces, is a frame of its own.
		var err error
		j.out, err = p.encs.frame(j.out, func(z *zstd.Encoder) error {
			var err error
			j.exp, err = m.expand(lo, hi, end, streamChunk, j.exp, func(b []byte) error {
				_, err := z.Write(b)
				return err
			})
			return err
		})
		return err
	})
}

// appendWriter appends what is written to it to b.
type appendWriter struct{ b []byte }

// Write appends p; it never fails.
func (a *appendWriter) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
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
		w.stats.RunFrames += j.runFrames
	}
	p.free = append(p.free, j.in[:0])
	p.freeM = append(p.freeM, j.marks[:0])
	j.in, j.marks = nil, nil
	p.head = (p.head + 1) % len(p.slots)
	p.n--
}

// drain writes every frame in flight, in order, and gives the stream
// its encoder back, writing to the file.
func (p *parallel) drain(w *Writer) {
	for p.n > 0 {
		p.retire(w)
	}
	w.zw.Reset(&w.cw)
}
