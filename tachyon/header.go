package tachyon

import "encoding/binary"

// Header is the file's fixed 64-byte header at offset 0.
type Header struct {
	Magic             uint32 // Magic in a valid file
	Version           uint32
	StartTime         uint64 // microseconds since the epoch
	Interval          uint64 // microseconds between samples
	SampleCount       uint32
	ThreadCount       uint32
	StringTableOffset uint64
	FrameTableOffset  uint64
	Compression       Compression
}

// Byte offsets of the header's fields, for the encoder and for errors that
// say where a field is.
const (
	HeaderMagicAt       = 0
	HeaderVersionAt     = 4
	HeaderStartTimeAt   = 8
	HeaderIntervalAt    = 16
	HeaderSamplesAt     = 24
	HeaderThreadsAt     = 28
	HeaderStringTableAt = 32
	HeaderFrameTableAt  = 40
	HeaderCompressionAt = 48
	HeaderReservedAt    = 52 // reserved bytes, zero, up to HeaderSize
)

// Encode returns the header's bytes; the reserved bytes are zero.
func (h Header) Encode() [HeaderSize]byte {
	var b [HeaderSize]byte
	le := binary.LittleEndian
	le.PutUint32(b[HeaderMagicAt:], h.Magic)
	le.PutUint32(b[HeaderVersionAt:], h.Version)
	le.PutUint64(b[HeaderStartTimeAt:], h.StartTime)
	le.PutUint64(b[HeaderIntervalAt:], h.Interval)
	le.PutUint32(b[HeaderSamplesAt:], h.SampleCount)
	le.PutUint32(b[HeaderThreadsAt:], h.ThreadCount)
	le.PutUint64(b[HeaderStringTableAt:], h.StringTableOffset)
	le.PutUint64(b[HeaderFrameTableAt:], h.FrameTableOffset)
	le.PutUint32(b[HeaderCompressionAt:], uint32(h.Compression))
	return b
}

// ParseHeader decodes a header's fields. It checks nothing: a reader
// validates them, and the reserved bytes, itself.
func ParseHeader(b *[HeaderSize]byte) Header {
	le := binary.LittleEndian
	return Header{
		Magic:             le.Uint32(b[HeaderMagicAt:]),
		Version:           le.Uint32(b[HeaderVersionAt:]),
		StartTime:         le.Uint64(b[HeaderStartTimeAt:]),
		Interval:          le.Uint64(b[HeaderIntervalAt:]),
		SampleCount:       le.Uint32(b[HeaderSamplesAt:]),
		ThreadCount:       le.Uint32(b[HeaderThreadsAt:]),
		StringTableOffset: le.Uint64(b[HeaderStringTableAt:]),
		FrameTableOffset:  le.Uint64(b[HeaderFrameTableAt:]),
		Compression:       Compression(le.Uint32(b[HeaderCompressionAt:])),
	}
}

// Footer is the file's fixed 32-byte footer at its end.
type Footer struct {
	StringCount uint32
	FrameCount  uint32
	FileSize    uint64 // the whole file's size, footer included
}

// Byte offsets of the footer's fields, from the footer's start.
const (
	FooterStringCountAt = 0
	FooterFrameCountAt  = 4
	FooterFileSizeAt    = 8
	FooterChecksumAt    = 16 // reserved for a checksum, zero, up to FooterSize
)

// Encode returns the footer's bytes; the checksum bytes are zero.
func (f Footer) Encode() [FooterSize]byte {
	var b [FooterSize]byte
	le := binary.LittleEndian
	le.PutUint32(b[FooterStringCountAt:], f.StringCount)
	le.PutUint32(b[FooterFrameCountAt:], f.FrameCount)
	le.PutUint64(b[FooterFileSizeAt:], f.FileSize)
	return b
}

// ParseFooter decodes a footer's fields. Like ParseHeader, it checks
// nothing.
func ParseFooter(b *[FooterSize]byte) Footer {
	le := binary.LittleEndian
	return Footer{
		StringCount: le.Uint32(b[FooterStringCountAt:]),
		FrameCount:  le.Uint32(b[FooterFrameCountAt:]),
		FileSize:    le.Uint64(b[FooterFileSizeAt:]),
	}
}

// RecordHeaderSize is the size of every sample record's fixed start:
// thread id (8 bytes), interpreter id (4) and encoding (1).
const RecordHeaderSize = 13
