package writer

import (
	"io"

	"github.com/gotachyon/profiler/internal/zstdrun"
)

// With compression, a run's tail (a parked goroutine's run is nothing
// else) is not expanded into the record buffer: a mark says where its
// copies of one pair belong. When the buffer is compressed, a stretch of
// marked records with little else between them (parked goroutines'
// records, one after another) goes into a zstd frame of its own written
// by internal/zstdrun, which takes the tails, and the records that repeat
// an earlier one but for their thread id, as its matches instead of
// reading their bytes; the rest of
// the buffer is expanded and goes to the compressed stream as before,
// whose encoder finds the matches in records of other kinds. The file is
// the same bytes either way once decompressed.

// A mark stands for a tail in the record buffer: the tail's expansion
// belongs at pos.
type mark struct {
	pos int32
	t   tail
}

const (
	// minMarkBytes is the shortest tail that goes in as a mark; a
	// shorter one is expanded, as every tail is without compression.
	// Stop's last runs are short (a few ticks since the early settle).
	minMarkBytes = 16
	// maxMarks bounds one record buffer's marks (12 bytes each).
	maxMarks = 8192
	// runLit is the most bytes a marked record may have before its tail,
	// with what precedes it since the last mark, to count as a run's: a
	// REPEAT record's header and a few pairs. zstdrun matches literal
	// bytes only against the record before of the same run.
	runLit = 24
	// runShare: a marked record with more before its tail still counts
	// as a run's when that is at most a runShare-th of its tail's
	// expanded size: a goroutine's first record, or its stack's change,
	// before a long run. zstdrun takes the tail as one match, and the
	// record's stretches alike the one before it as others, where the
	// stream's encoder would read every byte of the tail.
	runShare = 16
	// minRuns is the fewest runs' records in a row that go into a frame
	// of their own: fewer are not worth ending the stream's frame (at 32,
	// the bundled demo's file of 100 idle goroutines was 11 % larger,
	// its checkpoints' few runs each a frame).
	minRuns = 256
)

// markable reports whether t's tail goes into the record buffer as a
// mark: with compression, if it is long enough.
func (w *Writer) markable(t *thread) bool { return w.zw != nil && t.tail.size() >= minMarkBytes }

// markTail returns the record buffer b, which ends where t's tail
// belongs, and marks the tail there.
func (w *Writer) markTail(b []byte, t *thread) []byte {
	w.tails = append(w.tails, mark{pos: int32(len(b)), t: t.tail})
	return b
}

// marked is a record buffer with its marks. Its unit i is the bytes
// from the mark before (or the buffer's start) to mark i, then mark i's
// tail; the bytes after the last mark follow.
type marked struct {
	buf   []byte
	marks []mark
}

// start returns where unit i's bytes begin.
func (m marked) start(i int) int {
	if i == 0 {
		return 0
	}
	return int(m.marks[i-1].pos)
}

// runLike reports whether unit i is a run's record with little before it:
// at most runLit bytes, or at most a runShare-th of its tail.
func (m marked) runLike(i int) bool {
	lit := int(m.marks[i].pos) - m.start(i)
	return lit <= runLit || lit*runShare <= m.marks[i].t.size()
}

// segments calls runs for each stretch of at least minRuns run-like
// units and other for each stretch between them, in order, each with
// its units' indices and where its bytes end: at the mark of the next
// stretch's first unit, or, for the last, at the buffer's end (the bytes
// after the last mark go with the last stretch of runs if they are few,
// else with other units; other may so be called with no unit, lo == hi).
func (m marked) segments(runs, other func(lo, hi, end int) error) error {
	n := len(m.marks)
	lo := 0 // start of the stretch of other units not yet handed over
	for i := 0; i < n; {
		if !m.runLike(i) {
			i++
			continue
		}
		j := i + 1
		for j < n && m.runLike(j) {
			j++
		}
		if j-i >= minRuns {
			if lo < i {
				if err := other(lo, i, m.start(i)); err != nil {
					return err
				}
			}
			end := m.start(j)
			if j == n && len(m.buf)-end <= runLit {
				end = len(m.buf)
			}
			if err := runs(i, j, end); err != nil {
				return err
			}
			if end == len(m.buf) {
				return nil
			}
			lo = j
		}
		i = j
	}
	return other(lo, n, len(m.buf))
}

// encodeRuns writes units lo to hi-1, and the bytes after them to end,
// as one frame of e.
func (m marked) encodeRuns(e *zstdrun.Encoder, dst io.Writer, lo, hi, end int) error {
	e.Reset(dst)
	for i := lo; i < hi; i++ {
		k := &m.marks[i]
		e.Add(m.buf[m.start(i):k.pos], k.t.bytes(), int(k.t.n))
	}
	e.Add(m.buf[m.start(hi):end], nil, 0)
	return e.Close()
}

// streamChunk is about the size of the pieces expand hands to the
// stream's encoder, which gathers them into its blocks: small, so that
// each writer's scratch stays small (a profile with checkpoints has
// several writers).
const streamChunk = 32 << 10

// expand calls emit with the bytes of units lo to hi-1, their tails
// expanded, and the bytes after them to end, in pieces of about chunk
// bytes; bytes between marks as long as that go straight from the
// buffer. scratch holds the pieces and is returned for reuse.
func (m marked) expand(lo, hi, end, chunk int, scratch []byte, emit func([]byte) error) ([]byte, error) {
	out := scratch[:0]
	var err error
	put := func(b []byte) {
		if err != nil {
			return
		}
		if len(b) >= chunk {
			if len(out) > 0 {
				err = emit(out)
				out = out[:0]
			}
			if err == nil {
				err = emit(b)
			}
			return
		}
		out = append(out, b...)
	}
	for i := lo; i < hi && err == nil; i++ {
		k := &m.marks[i]
		put(m.buf[m.start(i):k.pos])
		out = k.t.appendTo(out)
		if err == nil && len(out) >= chunk {
			err = emit(out)
			out = out[:0]
		}
	}
	put(m.buf[m.start(hi):end])
	if err == nil && len(out) > 0 {
		err = emit(out)
	}
	return out[:0], err
}

// flushMarked hands the record buffer, which has marks, to the stream:
// its runs as frames of their own (each ending the stream's frame
// first), the rest expanded.
func (w *Writer) flushMarked() error {
	m := marked{w.buf, w.tails}
	return m.segments(func(lo, hi, end int) error {
		if err := w.endZstdFrame(); err != nil {
			return err
		}
		if w.runs == nil {
			w.runs = zstdrun.New()
		}
		w.stats.RunFrames++
		return m.encodeRuns(w.runs, &w.cw, lo, hi, end)
	}, func(lo, hi, end int) error {
		var err error
		w.exp, err = m.expand(lo, hi, end, streamChunk, w.exp, w.zwWrite)
		return err
	})
}

// zwWrite writes b to the compressed stream, whose frame is then open.
func (w *Writer) zwWrite(b []byte) error {
	w.zwOpen = true
	_, err := w.zw.Write(b)
	return err
}

// endZstdFrame ends the compressed stream's frame, if it has begun one,
// so that what follows is another frame.
func (w *Writer) endZstdFrame() error {
	if !w.zwOpen {
		return nil
	}
	w.zwOpen = false
	err := w.zw.Close()
	w.zw.Reset(&w.cw)
	return err
}
