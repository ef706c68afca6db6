package tachyon

import "strconv"

// Fixed facts of the Tachyon v2 layout.
const (
	// Magic is the first field of every file, stored little-endian ("HCAT").
	Magic uint32 = 0x54414348
	// Version is the only format version this module reads and writes.
	Version uint32 = 2
	// HeaderSize is the size of the fixed header at offset 0.
	HeaderSize = 64
	// FooterSize is the size of the fixed footer at the end of the file.
	FooterSize = 32
	// MinFileSize is the smallest possible file: a header and a footer.
	MinFileSize = HeaderSize + FooterSize
)

// Compression says how the sample region is stored.
type Compression uint32

// Compression types of the header's compression field.
const (
	CompressionNone Compression = 0
	CompressionZstd Compression = 1
)

// String returns "none", "zstd" or "unknown(N)".
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionZstd:
		return "zstd"
	}
	return "unknown(" + strconv.FormatUint(uint64(c), 10) + ")"
}

// Encoding is the record type byte that follows a record's thread fields.
type Encoding uint8

// Record encodings.
const (
	Repeat  Encoding = 0 // identical stack, run of (delta, status) pairs
	Full    Encoding = 1 // complete stack
	Suffix  Encoding = 2 // keep the outermost frames, push new ones
	PopPush Encoding = 3 // pop frames from the top, push new ones
	// NumEncodings is the number of defined encodings.
	NumEncodings = 4
)

var encodingNames = [NumEncodings]string{"REPEAT", "FULL", "SUFFIX", "POP_PUSH"}

// String returns the encoding's name as the spec writes it (REPEAT, FULL,
// SUFFIX, POP_PUSH).
func (e Encoding) String() string {
	if int(e) < len(encodingNames) {
		return encodingNames[e]
	}
	return "unknown(" + strconv.FormatUint(uint64(e), 10) + ")"
}

// Limits shared by the writer and the reader.
const (
	// MaxWriteDepth is the deepest stack a writer stores; deeper stacks keep
	// their innermost MaxWriteDepth frames.
	MaxWriteDepth = 256
	// MaxReadDepth is the deepest stack a reader accepts. It bounds the
	// memory a hostile file can make a reader hold per thread.
	MaxReadDepth = 1 << 16
)
