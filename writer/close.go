package writer

import (
	"fmt"
	"io"

	"github.com/gotachyon/profiler/tachyon"
)

// Close finalizes the file: it writes every pending run (the threads of
// handles in order of first appearance, then the numbered threads in order
// of number), ends the compressed stream, writes the string table, the
// frame table and the footer, and then the header at the start. It does
// not close the underlying writer, except for a Writer made by Create. It
// returns the first error met while writing; a second Close returns
// ErrClosed.
func (w *Writer) Close() error {
	if w.closed {
		return ErrClosed
	}
	w.closed = true
	err := w.finish()
	if w.nums != nil {
		w.nums.release()
	}
	if w.closer != nil {
		if cerr := w.closer.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("writer: %w", cerr)
		}
	}
	return err
}

func (w *Writer) finish() error {
	// Each thread's last run, and its stack buffer back: a closed Writer
	// kept to be Reset for another file (a segment's) would hold a
	// buffer for every thread whose last sample changed its stack.
	w.eachThread(func(t *thread) {
		w.flushRun(t)
		if w.owned(t) {
			w.freeStack(w.stackBufs[t.stack])
			t.stack = noRef
		}
	})
	w.flushBuf()
	if w.par != nil {
		w.par.drain(w)
		w.par = nil
	}
	w.endFrames()
	if w.err != nil {
		return w.err
	}
	// The tables follow the records uncompressed: the compressor is
	// closed by now.
	tables, strOff, frmOff := w.appendTables(w.buf[:0], w.cw.n)
	w.buf = tables
	w.flushRaw()
	if w.err != nil {
		return w.err
	}
	size := w.cw.n
	h := w.header(uint64(strOff), uint64(frmOff))
	if _, err := w.dst.Seek(w.base, io.SeekStart); err != nil {
		w.setErr(err)
		return w.err
	}
	w.buf = append(w.buf[:0], h[:]...)
	_, err := w.dst.Write(w.buf)
	w.buf = w.buf[:0]
	if err != nil {
		w.setErr(err)
		return w.err
	}
	_, err = w.dst.Seek(w.base+size, io.SeekStart)
	w.setErr(err)
	return w.err
}

// endFrames ends the compressed stream's frame, so that the records
// written so far decompress on their own: the frame in progress, or an
// empty frame if no record has been written yet (a zstd stream has a
// frame at least).
func (w *Writer) endFrames() {
	if w.zw == nil {
		return
	}
	if w.cw.n == tachyon.HeaderSize {
		w.zwOpen = true
	}
	w.setErr(w.endZstdFrame())
}

// flushRaw writes the record buffer straight to the file (the tables are
// never compressed).
func (w *Writer) flushRaw() {
	if len(w.buf) > 0 {
		_, err := w.cw.Write(w.buf)
		w.setErr(err)
		w.buf = w.buf[:0]
	}
}

func (w *Writer) header(strOff, frmOff uint64) [tachyon.HeaderSize]byte {
	return tachyon.Header{
		Magic:             tachyon.Magic,
		Version:           tachyon.Version,
		StartTime:         w.opts.StartTime,
		Interval:          w.opts.Interval,
		SampleCount:       uint32(w.stats.Samples),
		ThreadCount:       uint32(w.nthreads),
		StringTableOffset: strOff,
		FrameTableOffset:  frmOff,
		Compression:       w.opts.Compression,
	}.Encode()
}

// countWriter counts the bytes written through it, as archive/zip does, so
// that the writer knows every table's offset without seeking.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
