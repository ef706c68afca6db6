// Package segment writes a profile as a series of finalized Tachyon files
// in a directory, one per period: rolling segments, each a complete file
// with its own tables, written by a writer.Writer that package segment
// composes through writer's exported API.
//
// New opens the first segment and starts the goroutine that finalizes the
// closed ones. Samples go in as into a writer.Writer: Frame interns a frame
// once and returns the Writer's own index for it, and Writer.Thread
// returns a thread's handle, valid across segments, whose Write,
// RepeatEvery, Flush and Forget are the writer's thread-handle calls; each
// segment interns the frames its samples use, and starts each thread with a
// full stack.
//
// Every sample goes to the segment whose time range holds it: a segment
// holds [start, end), its nominal period, whose start its header and name
// state and whose end is the next segment's start (the last ends at
// Close); a RepeatEvery run that crosses boundaries is split across the
// segments it spans. A sample at or past the newest segment's end opens
// the next, in the file the finalizing goroutine opened ahead; the older
// segments stay open, each with its writer.Writer, while the samples of
// their time may still come: a sampler writes some goroutines' ticks
// seconds late, and Watermark tells when it will write none older. A
// segment is finalized once the watermark passes its end, or MaxLag after
// it, or at Close; the first segment also at the first rollover, so that
// a process that dies soon after its start leaves a finalized file, its
// later samples going to a sequel of the same range. A sample no open
// segment can hold is left out, counted (Stats.Late) and logged. At most
// MaxOpen segments are open (the newest is lengthened instead). A
// segment that holds FullAt samples ends early, after its newest, and the
// next starts there, so that no file reaches the format's 2^32-1
// samples. A finished segment goes to the Writer's own goroutine, which
// closes its writer.Writer (every thread's last run, the tables, footer
// and header), keeps the writer to start anew (writer.Writer.Reset) in a
// later segment, and renames the closed file to its final name, so that
// only complete files end in Ext, and a process killed at any point loses
// only the open segments. The writing goroutine does not wait for it.
// Close finalizes the open segments and waits for the others.
//
// The names (Name, ParseName) sort by start time and carry the run's id
// (NewRunID), so that the segments of several runs sharing a directory can
// be told apart. A budget (Options.KeepFiles, KeepBytes) deletes the
// oldest finalized segments of the prefix, and at its start a Writer
// removes the open files (PartExt) that dead processes left.
//
// While the directory refuses writes, a Writer holds what was refused in
// memory: up to Options.HoldBytes (DefaultHoldBytes) of encoded samples,
// past which it drops samples and counts them (Stats.Dropped), plus the
// segments waiting to be finalized, a bounded number (past it the oldest
// is given up, and counted in Stats.Lost); it tries again every
// DefaultRetry. Close's error says what was lost.
//
// The errors a handle returns are writer's: writer.ErrClosed after Close,
// writer.ErrForgotten after Forget, writer.ErrNoStack for RepeatEvery
// before the thread's first sample, writer.ErrFrameIndex for an index
// Frame did not return, and the errors of the segment's writer.Writer.
package segment
