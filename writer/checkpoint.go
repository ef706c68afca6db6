package writer

import (
	"encoding/binary"

	"github.com/gotachyon/profiler/tachyon"
)

// A Checkpoint makes the part of a file written so far a finished Tachyon
// file of its own: Header at the file's start, the bytes written from
// after the header up to DataEnd as they are, then Tables. The writer goes
// on appending after DataEnd and never rewrites what lies before it, so a
// process that dies keeps every sample up to its last Checkpoint in the
// bytes it wrote (see internal/checkpoint).
type Checkpoint struct {
	// DataEnd is the end of the sample records, from the header's offset.
	DataEnd int64
	// Header is the header of the file that ends at this checkpoint.
	Header [tachyon.HeaderSize]byte
	// Tables are the string table, the frame table and the footer that
	// follow DataEnd in that file.
	Tables []byte
	// Samples is the number of samples it holds.
	Samples uint64
}

// Checkpoint writes every pending run and ends the compressed stream's
// current frame (the next records start another, so that the records up
// to DataEnd decompress on their own), and returns the Checkpoint of the
// file so far. Its Tables are appended to buf[:0], which the caller may
// reuse for the next one. Writing goes on as before.
func (w *Writer) Checkpoint(buf []byte) (Checkpoint, error) {
	if w.closed {
		return Checkpoint{}, ErrClosed
	}
	w.eachThread(w.flushRun)
	w.flushBuf()
	if w.par != nil {
		w.par.drain(w)
	}
	w.endFrames()
	if w.err != nil {
		return Checkpoint{}, w.err
	}
	end := w.cw.n
	tables, strOff, frmOff := w.appendTables(buf[:0], end)
	return Checkpoint{DataEnd: end, Header: w.header(uint64(strOff), uint64(frmOff)), Tables: tables, Samples: w.stats.Samples}, nil
}

// appendTables appends to b the string table, the frame table and the
// footer of a file whose records end at offset end (the strings and
// frames its records use), and returns their offsets.
func (w *Writer) appendTables(b []byte, end int64) (_ []byte, strOff, frmOff int64) {
	strOff = end
	for _, i := range w.strUsed {
		s := w.strTab[i]
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	frmOff = end + int64(len(b))
	for _, i := range w.frmUsed {
		f := w.frmTab[i]
		b = binary.AppendUvarint(b, uint64(w.strOut[f.file]-1))
		b = binary.AppendUvarint(b, uint64(w.strOut[f.fn]-1))
		b = binary.AppendVarint(b, int64(f.line))
	}
	size := uint64(end) + uint64(len(b)) + tachyon.FooterSize
	foot := tachyon.Footer{StringCount: uint32(len(w.strUsed)), FrameCount: uint32(len(w.frmUsed)), FileSize: size}.Encode()
	return append(b, foot[:]...), strOff, frmOff
}
