package nytprof

import (
	"bufio"
	"encoding/binary"
	"math"
)

// Record tags of the NYTProf 5.0 stream.
const (
	tagComment    = '#'
	tagAttribute  = ':'
	tagOption     = '!'
	tagDeflate    = 'z'
	tagPIDStart   = 'P'
	tagPIDEnd     = 'p'
	tagNewFID     = '@'
	tagTimeLine   = '+'
	tagDiscount   = '-'
	tagSrcLine    = 'S'
	tagSubInfo    = 's'
	tagSubCallers = 'c'
	tagSubReturn  = '<'
	tagString     = '\''
)

// NEW_FID flags.
const (
	fidSeenStmt = 0x02
	fidSeenSub  = 0x04
	fidHasSrc   = 0x10
	fidSaveSrc  = 0x20
	fidIsFake   = 0x80

	flagsWithSource    = fidSeenStmt | fidSeenSub | fidHasSrc | fidSaveSrc // 0x36
	flagsWithoutSource = fidSeenStmt | fidSeenSub | fidIsFake              // 0x86
)

// enc writes NYTProf primitives to a buffered writer. Errors are sticky in
// the bufio.Writer and checked once at the end.
type enc struct {
	w   *bufio.Writer
	tmp [8]byte
}

// u32 writes the NYTProf variable-length unsigned integer (big-endian
// payload, length chosen by value).
func (e *enc) u32(v uint32) {
	b := e.tmp[:0]
	switch {
	case v < 0x80:
		b = append(b, byte(v))
	case v < 0x4000:
		b = append(b, 0x80|byte(v>>8), byte(v))
	case v < 0x200000:
		b = append(b, 0xC0|byte(v>>16), byte(v>>8), byte(v))
	case v < 0x10000000:
		b = append(b, 0xE0|byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	default:
		b = append(b, 0xFF, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
	}
	e.w.Write(b)
}

// nv writes a little-endian IEEE-754 double.
func (e *enc) nv(f float64) {
	binary.LittleEndian.PutUint64(e.tmp[:], math.Float64bits(f))
	e.w.Write(e.tmp[:8])
}

// str writes a plain (non-utf8-flagged) string: UTF-8 bytes stay raw.
func (e *enc) str(s string) {
	e.w.WriteByte(tagString)
	e.u32(uint32(len(s)))
	e.w.WriteString(s)
}

// text writes a text record: tag, text, newline.
func (e *enc) text(tag byte, s string) {
	e.w.WriteByte(tag)
	e.w.WriteString(s)
	e.w.WriteByte('\n')
}

func (e *enc) tag(t byte) { e.w.WriteByte(t) }
