// Package writer streams profile samples into a Tachyon v2 file (see package
// tachyon for the layout).
//
// A Writer takes samples one at a time, delta-encodes each thread's stack
// against that thread's previous one (REPEAT, FULL, SUFFIX or POP_PUSH
// records), batches the records in a 512 KB buffer and hands full buffers to
// the file, through one zstd encoder when compression is on. Strings and
// frames are interned as they are first seen; the file's tables, written
// when the Writer is closed, hold those that records use, in the order of
// their first use (a frame interned for a sample never written costs
// nothing in the file); Close then writes the footer and finally the header at the
// start of the output, which is why the output must be an io.WriteSeeker. Like
// gzip.Writer and zip.Writer, Close finalizes the format but does not close
// the underlying file (except for a Writer made by Create, which owns it).
//
// There are three ways in. WriteSample takes frames as (file, function,
// line) and interns them itself. WriteStack takes frame indices that Frame
// returned (each distinct frame interned once), and allocates nothing per
// sample in steady state. A caller that writes many samples per thread (a
// sampler, with one handle per goroutine) takes the thread's handle once
// with Thread and writes through the handle's methods: Write, Repeat for
// the thread's previous stack again, RepeatEvery for a run of such samples
// a step apart; Flush ends the thread's pending run and Forget releases a
// thread that ended. A caller that keeps every handle it takes, and takes
// each once, takes them with NewThread, which the Writer does not keep by
// id. One that keeps a record per thread where a pointer cannot lie (off
// the Go heap) takes a number instead, with NewThreadNo, and writes with
// WriteNo, RepeatEveryNo, FlushNo and ForgetNo (RepeatFlushNo for a run
// and its flush in one call): the Writer then keeps the thread's record in
// chunks of its own, and the thread costs no handle.
//
// # Encoding rules
//
// The writer makes the same choices as CPython's Tachyon writer, so the same
// input yields byte-identical uncompressed output. Per thread (thread id,
// interpreter id): the first sample is FULL; a stack equal to the previous
// one is not written at once but appended to the thread's pending run, which
// becomes one REPEAT record when the stack changes or the file ends; a changed
// stack is FULL when it shares no outermost frame with the previous one,
// SUFFIX when it keeps the whole previous stack and adds frames on top, and
// otherwise POP_PUSH, unless the shared part is shorter than half the new
// depth, in which case FULL. Strings and frames are numbered in first-use
// order, innermost frame first, file name before function name.
//
// # Memory bounds
//
// Stacks deeper than tachyon.MaxWriteDepth (256) keep their innermost 256
// frames. A pending REPEAT run is written out once its (delta, status) pairs
// reach MaxRunBytes (16 KiB), or when the caller ends it (Thread.Flush: a
// sampler writing in batches ends each thread's run once per batch). A
// run's trailing copies of one pair (a parked goroutine's run is nothing
// else) are kept as the pair and a count, and are expanded only into the
// record buffer, so that such a run costs a few bytes however long it is.
// A thread holds a run's state (its pairs, tail and place in the queue of
// pending runs) only while it has a pending run, and a pairs buffer only
// while its run has other pairs; a written run's buffer goes to a free list
// of at most 1 MiB, from which the next run takes one, so that threads
// written in batches share a few buffers.
// The capacity of the buffers the threads hold is capped at
// Options.MaxPendingBytes (DefaultMaxPendingBytes, 4 MiB): past it the oldest
// run is written first. With T threads the writer thus holds at most: the
// 512 KB record buffer, 4 MiB of pending pairs and 1 MiB of free ones; per
// thread its record, 32 bytes off the Go heap for a numbered thread, or a
// Thread of 48 bytes on it with its map entry (none for NewThread's) and
// its place in the list of threads (8 bytes); an interpreter id other than
// 0 has a map entry of its own; and its previous stack: from a change of
// its stack to its next Flush in a buffer of its own (4 bytes a frame, in
// a buffer of at least 32 frames, up to 1 KiB), otherwise one copy shared
// by the threads that have the same stack (a table of at most 65,536
// stacks, and the copies threads still share after the table let them
// go); the string and frame tables of what was seen; and with zstd one
// encoder: level 5 (klauspost's SpeedDefault) with concurrency 1,
// lower-memory mode and a 128 KiB window. BenchmarkEncoderMemory reports the heap of such a
// Writer; bench/MEASUREMENTS.md has that figure and a thread's.
//
// # Runs in frames of their own
//
// With zstd, a run's tail of 16 bytes or more is not expanded into the
// record buffer either: a mark (12 bytes, at most 8,192 a buffer) says
// where it belongs. When the buffer is compressed, a stretch of 256 or more
// such records with at most 24 other bytes before each, or at most a
// sixteenth of the tail's size (parked goroutines' records, one after
// another, or their first records before a long run) goes into a zstd
// frame of its own, written by internal/zstdrun, which takes the repeats,
// and the records that repeat an earlier one but for their thread id, as
// its matches instead of reading their bytes. Nothing else reads them
// either: such a frame has no content checksum, but a checksum frame of
// its bytes as written after it (internal/framesum), which the reader
// checks; the stream's frames keep their content checksums. The rest of
// the buffer is expanded, in pieces of about 32 KiB, into the stream's encoder, which finds the matches of
// other records; the stream's frame ends before each frame of runs.
// Decompressed, the records are the same bytes either way
// (TestRunFramesSameRecords). This adds to the bounds above the marks,
// the expanded piece (64 KiB or so, and more only for a single tail
// longer than that) and zstdrun's encoder (a block of 64 KiB and its
// sequences).
//
// Once Finishing is called (a profiler's Stop, whose program waits for the
// file), each full record buffer is compressed into zstd frames of its
// own (one, or with marks its runs' and the rest's, the rest expanded in
// pieces of a buffer's size), up to four buffers at
// once, each with encoders of the same options and its buffer, and the
// frames are written in order: the compressed records
// are then several frames, as a file with checkpoints holds already, which
// a zstd decoder reads as one stream.
//
// # Timestamps
//
// Timestamps are microseconds. A thread's timestamps are taken as
// non-decreasing: one earlier than the thread's previous sample (or, for the
// first sample, earlier than the start time) is recorded with delta 0.
package writer
