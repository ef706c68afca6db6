// Package reader reads and validates Tachyon v2 profile files (see package
// tachyon for the layout; package writer writes them).
//
// Open maps a file into memory with mmap (falling back to reading it) and
// NewFile works over any io.ReaderAt, as debug/elf does. Both read and check
// the header, the footer and the string and frame tables right away, without
// touching the sample records; File.Samples then iterates over the samples in
// file order, decompressing a zstd sample region as it goes. Iteration yields
// frame indices without allocating; Samples.Frames resolves them.
// File.Verify runs the whole strict validation, the sample records included.
//
// Every problem is reported as a *FormatError carrying the byte offset, a
// code (the E_* names of the shared test vectors) and a reason; it wraps
// ErrFormat, so errors.Is(err, reader.ErrFormat) tells bad input from I/O
// failure. The reader never panics on bad input and never allocates from a
// length field more than the file can hold: table counts are checked against
// the bytes that hold them, and stacks grow only as frames are actually read
// (at most tachyon.MaxReadDepth). The work a file can ask for is bounded
// too: past its first million samples, a zstd sample region may hold at
// most 4,096 samples per compressed byte (the writer's worst case is about
// 1,700), so a decompression bomb ends early with E_ZSTD. A zstd frame
// followed by a checksum frame (internal/framesum: the writer's frames of
// parked goroutines' runs, which carry no content checksum) is checked
// against it as its bytes are read: a frame damaged on disk ends the
// iteration with an error even where it still decompresses, E_ZSTD at the
// frame's offset unless a record the damage changed is found wrong first.
// The string table
// is held as one copy of its bytes plus 4 bytes per 16 strings, so that
// tens of millions of one-byte strings cost about their size on disk.
//
// Open refuses what is not a regular file (a FIFO or a device) without
// waiting on it, and reads a mapped file under a fault guard: a file
// truncated or rewritten while it is read gives ErrChanged, never a fault.
//
// Close iterators first, then their File. Using either after Close is safe
// all the same, from any goroutine: File.Close waits for a read under way
// and never unmaps pages being read; after it, Samples and Verify return
// ErrClosed, and an iterator that was still running ends with ErrClosed
// (possibly after the samples already in its buffer). Methods that return
// no error, such as Frame and Strings, keep working: the tables they read
// are heap copies.
package reader
