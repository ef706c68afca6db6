// Package gotrace reads the Go runtime's execution trace (the wire format of
// Go 1.26, "go 1.26 trace") for a goroutine sampler: goroutine state
// transitions with their stacks, wait reasons and creators, CPU samples,
// the start of each generation with its clock snapshot, and the
// runtime/trace annotations that label a goroutine's samples: tasks,
// regions, and logs in the category of internal/tracelabel (other logs
// are stepped over). Everything else the trace holds (processors, GC,
// metrics) is decoded only to be stepped over.
//
// golang.org/x/exp/trace reads every trace version and checks every event
// against the runtime's whole scheduling model; on a busy service that is
// most of a profiler's cost. This reader keeps only what goroutines need:
// each thread's current goroutine, and each goroutine's state and sequence
// number, which order the events of one goroutine that different threads
// wrote. Its events are those of x/exp/trace, with the same times
// (gotrace's differential test compares the two on recorded traces); a
// trace of another version is refused with ErrVersion, and the caller reads
// it with x/exp/trace.
//
// A generation is read whole before its first event is returned, as the
// runtime's own readers do; its buffers are reused, so that reading a
// steady trace allocates nothing. The runtime reports the status of every
// goroutine at each generation; with Reader.SkipSame the reports that
// repeat what a goroutine's latest event said are left out, which is most
// of the trace of a program of many parked goroutines. With Reader.Elide
// the caller may fold in whole the system calls that return with their P
// at once, two events of the trace that a busy server makes at each read
// and write, and with Reader.Start the goroutines' starts, as the reader
// meets them.
package gotrace
