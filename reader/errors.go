package reader

import (
	"errors"
	"fmt"
)

// ErrFormat is wrapped by every error that reports a malformed file.
var ErrFormat = errors.New("tachyon: malformed file")

// Error codes of FormatError, named as in the shared test vectors' manifest.
const (
	ETooSmall          = "E_TOO_SMALL"
	EMagic             = "E_MAGIC"
	EVersion           = "E_VERSION"
	EFooterSize        = "E_FOOTER_SIZE"
	ECompression       = "E_COMPRESSION"
	EReserved          = "E_RESERVED"
	EChecksum          = "E_CHECKSUM"
	EOffsetRange       = "E_OFFSET_RANGE"
	EOffsetOrder       = "E_OFFSET_ORDER"
	EStringCount       = "E_STRING_COUNT"
	EFrameCount        = "E_FRAME_COUNT"
	EVarint            = "E_VARINT"
	EUTF8              = "E_UTF8"
	EStringIndex       = "E_STRING_INDEX"
	EZstd              = "E_ZSTD"
	ERecordTruncated   = "E_RECORD_TRUNCATED"
	EEncoding          = "E_ENCODING"
	EFrameIndex        = "E_FRAME_INDEX"
	ERepeatNoStack     = "E_REPEAT_NO_STACK"
	ERepeatZero        = "E_REPEAT_ZERO"
	ESharedDepth       = "E_SHARED_DEPTH"
	EPopDepth          = "E_POP_DEPTH"
	ETimestampOverflow = "E_TIMESTAMP_OVERFLOW"
	ESampleCount       = "E_SAMPLE_COUNT"
	EThreadCount       = "E_THREAD_COUNT"
	EDepth             = "E_DEPTH" // a stack deeper than tachyon.MaxReadDepth
)

// FormatError reports a malformed file: where, which rule, and why.
type FormatError struct {
	// Offset is the file offset of the bad bytes. For a compressed sample
	// region it is the region's start, or that of a zstd frame that does
	// not match its checksum frame, and Decompressed says where in the
	// decompressed stream the problem was met.
	Offset       int64
	Decompressed int64 // -1 unless the problem is inside decompressed data
	Code         string
	Reason       string
}

// Error gives the offset, the check's code and the reason, and the
// decompressed byte when the problem lies in decompressed data.
func (e *FormatError) Error() string {
	if e.Decompressed >= 0 {
		return fmt.Sprintf("offset %d: %s: %s (decompressed byte %d)", e.Offset, e.Code, e.Reason, e.Decompressed)
	}
	return fmt.Sprintf("offset %d: %s: %s", e.Offset, e.Code, e.Reason)
}

// Unwrap makes errors.Is(err, ErrFormat) hold.
func (e *FormatError) Unwrap() error { return ErrFormat }

func formatErr(off int64, code, format string, args ...any) error {
	return &FormatError{Offset: off, Decompressed: -1, Code: code, Reason: fmt.Sprintf(format, args...)}
}

// Code returns the FormatError code carried by err, or "" if there is none.
func Code(err error) string {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fe.Code
	}
	return ""
}
