package writer

import (
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/gotachyon/profiler/tachyon"
)

// ErrNotClosed is returned by Reset for a Writer that is still writing a
// file.
var ErrNotClosed = errors.New("writer: Reset before Close")

// Reset makes a closed Writer start a new Tachyon file at dst's current
// offset, as New does, keeping the memory it grew for the last one: the
// record buffer, the compressor, the tables' capacity and the thread
// records. A caller that writes a series of files with one Writer (a new
// file every few seconds) so allocates nothing once the first files are
// written. Every handle of the last file is invalid after Reset.
func (w *Writer) Reset(dst io.WriteSeeker, opts Options) error {
	if !w.closed {
		return ErrNotClosed
	}
	if opts.Compression != tachyon.CompressionNone && opts.Compression != tachyon.CompressionZstd {
		return fmt.Errorf("writer: unsupported compression %v", opts.Compression)
	}
	if opts.MaxPendingBytes <= 0 {
		opts.MaxPendingBytes = DefaultMaxPendingBytes
	}
	base, err := dst.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("writer: output is not seekable: %w", err)
	}
	w.Recycle()
	clear(w.strings)
	clear(w.strTab)
	clear(w.frames)
	*w = Writer{
		dst: dst, base: base, cw: countWriter{w: dst}, opts: opts, zw: w.zw,
		buf: w.buf[:0], tails: w.tails[:0], exp: w.exp[:0], runs: w.runs, strings: w.strings, strTab: w.strTab[:0],
		frames: w.frames, frmTab: w.frmTab[:0], threads: w.threads, others: w.others, order: w.order,
		nums: w.nums, freeNos: w.freeNos[:0], pairsTab: w.pairsTab, freePairs: w.freePairs,
		stackBufs: w.stackBufs, freeRefs: w.freeRefs,
		strOut: w.strOut[:0], frmOut: w.frmOut[:0], strUsed: w.strUsed[:0], frmUsed: w.frmUsed[:0],
		freeBufs: w.freeBufs, freeBytes: w.freeBytes, stacks: w.stacks, freeStacks: w.freeStacks,
		spare: w.spare, scratch: w.scratch[:0],
	}
	var zero [tachyon.HeaderSize]byte
	if _, err := w.cw.Write(zero[:]); err != nil {
		return fmt.Errorf("writer: writing header: %w", err)
	}
	if opts.Compression != tachyon.CompressionZstd {
		w.zw = nil
		return nil
	}
	if w.zw == nil {
		if w.zw, err = newZstd(&w.cw); err != nil {
			return err
		}
		return nil
	}
	w.zw.Reset(&w.cw)
	return nil
}

// Recycle takes back a closed Writer's thread records and stack buffers
// for the next file, as Reset does first; Reset then skips it. The work
// grows with the threads of the closed file: a caller that closes a
// Writer on one goroutine and starts the next file on another (a
// segment's rollover) does it with the Close, where it costs the other
// goroutine nothing. It does nothing on a Writer that is not closed.
func (w *Writer) Recycle() {
	if !w.closed || w.recycled {
		return
	}
	w.recycled = true
	// Keep the last file's records only, so that the spares never
	// outnumber the threads of one file.
	clear(w.spare)
	w.spare = w.spare[:0]
	for _, t := range w.threads {
		w.keep(t)
	}
	for _, t := range w.others {
		w.keep(t)
	}
	// No thread of the last file uses its stacks any more: the table's
	// buffers are the next file's threads' to take.
	w.resetStacks()
	clear(w.threads)
	clear(w.others)
	w.order.Truncate(0)
	w.freeNos = w.freeNos[:0]
}

// zstdOptions are the compressor's options, the stream's and the
// parallel frames' alike.
func zstdOptions() []zstd.EOption { return zstdOptionsAt(ZstdLevel) }

// zstdOptionsAt are the compressor's options at zstd level level (the
// level goes first: it sets the block size that the window then keeps).
func zstdOptionsAt(level int) []zstd.EOption {
	return []zstd.EOption{
		zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)),
		zstd.WithLowerEncoderMem(true),
		zstd.WithWindowSize(ZstdWindow),
		zstd.WithZeroFrames(true),
	}
}

// keep adds a closed file's thread record to the spares, holding no
// stack. Close has given back every buffer a thread owned; what the record
// still refers to is a copy in the table, which Recycle hands to the next
// file's threads, numbered anew. A kept record that referred to it would
// name another buffer, or none.
func (w *Writer) keep(t *Thread) {
	*t = Thread{}
	w.spare = append(w.spare, t)
}

// newThread returns a fresh thread record, a spare one kept by Reset if
// there is one.
func (w *Writer) newThread(id uint64, interp uint32) *Thread {
	var t *Thread
	if n := len(w.spare); n == 0 {
		t = new(Thread)
	} else {
		t = w.spare[n-1]
		w.spare[n-1] = nil
		w.spare = w.spare[:n-1]
	}
	w.initThread(&t.thread, id, interp)
	return t
}

// initThread makes t the record of a new thread (id, interp).
func (w *Writer) initThread(t *thread, id uint64, interp uint32) {
	*t = thread{id: id, lastTS: w.opts.StartTime}
	if interp != 0 {
		if w.interps == nil {
			w.interps = make(map[*thread]uint32)
		}
		w.interps[t] = interp
	}
}

// newZstd returns the compressor of the sample region, writing to dst.
func newZstd(dst io.Writer) (*zstd.Encoder, error) {
	zw, err := newEncoder(dst)
	if err != nil {
		return nil, fmt.Errorf("writer: zstd: %w", err)
	}
	return zw, nil
}

// newEncoder returns a zstd encoder with the stream's options, which
// compresses on the goroutine that writes to it, into dst (nil: none
// until Reset).
func newEncoder(dst io.Writer) (*zstd.Encoder, error) {
	return zstd.NewWriter(dst, append(zstdOptions(), zstd.WithEncoderConcurrency(1))...)
}
