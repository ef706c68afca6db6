// Package merge joins Tachyon files that are the segments of one profiling
// run into one file.
//
// A service profiled in segments writes a finalized file per period; the
// segments of one run are consecutive in time, and a goroutine that lives
// across a boundary appears in several of them as the same thread (Go never
// reuses a goroutine id within a process). Merge streams every input's
// samples, in input order, into one writer: threads with the same (thread
// id, interpreter id) become one thread, frames and strings are interned
// anew, and timestamps stay absolute, the output starting at the earliest
// input's start time.
//
// Merge is for the segments of one run. The inputs must share the sampling
// interval, and a thread's timestamps must not go back from one input to
// the next; files given out of time order fail with an error that names
// the file. Files of different runs may well pass those checks (goroutine
// ids start again in every process), so Merge's callers first tell runs
// apart by the run id in the segments' names: SelectRuns refuses the
// segments of several runs unless told which (a run id, LatestRun) or to
// fuse them all (AllRuns).
//
// Memory is bounded by the threads and the distinct frames of the inputs,
// not by their samples: the inputs are read one at a time, and a REPEAT run
// of a parked goroutine is written as one run (writer.Thread.RepeatEvery)
// however many samples it holds.
package merge
