// Package tachyon defines the Tachyon v2 sampling-profile file format:
// its constants, limits, header and footer, frames, and the status byte with
// the states it stands for. Package writer produces files in
// this format and package reader consumes them; both follow the layout
// described here.
//
// # Layout
//
// A file is, in order:
//
//	offset 0     header, 64 bytes (HeaderSize)
//	offset 64    sample records, raw or one zstd stream
//	             string table, at the header's string_table_offset
//	             frame table, at the header's frame_table_offset
//	size-32      footer, 32 bytes (FooterSize)
//
// All fixed-width integers are little-endian; the magic 0x54414348 is stored
// as a little-endian uint32, so the bytes on disk are "HCAT".
//
// Header: magic u32, version u32 (= 2), start time µs u64, sample interval
// µs u64, sample count u32, thread count u32, string table offset u64, frame
// table offset u64, compression u32 (0 none, 1 zstd), 12 reserved zero bytes.
//
// Footer: string count u32, frame count u32, file size u64, 16 checksum bytes
// that must be zero.
//
// # Records
//
// Every record starts with thread id (u64), interpreter id (u32) and an
// encoding byte:
//
//	REPEAT   (0) count varint, then count × (delta varint, status byte)
//	FULL     (1) delta varint, status byte, depth varint, depth × frame varint
//	SUFFIX   (2) delta varint, status byte, shared varint, new varint, new × frame
//	POP_PUSH (3) delta varint, status byte, pop varint, push varint, push × frame
//
// Stacks are lists of frame-table indices, innermost frame first. REPEAT
// repeats the thread's previous stack; SUFFIX keeps the outermost shared
// frames of the previous stack and puts the new frames on top; POP_PUSH
// removes pop frames from the top of the previous stack and pushes new ones.
// Timestamp deltas are per thread (thread = distinct thread id and
// interpreter id); a thread's first delta is measured from the header's start
// time.
//
// # Tables
//
// The string table is string count × (length varint, UTF-8 bytes). The frame
// table is frame count × (filename index varint, function index varint, line
// zigzag varint). Each fills its byte range exactly.
//
// # Varints
//
// Unsigned varints are LEB128 and signed ones zigzag LEB128, exactly what
// encoding/binary's Uvarint and Varint read; over-long (non-minimal) forms
// are accepted by readers. Counts, indices and string lengths must fit 32
// bits, line numbers a signed 32-bit integer, timestamp deltas 64 bits.
package tachyon
