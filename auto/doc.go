// Package auto starts profiling when the program starts, from the
// environment, with a blank import:
//
//	import _ "github.com/gotachyon/profiler/auto"
//
// When PROFILE_OUT is set, the package's init starts a profile with the
// options of profiler.EnvOptions (PROFILE_MODE "wall" or "cpu",
// PROFILE_RATE in Hz, PROFILE_CHECKPOINT, and the segment variables
// PROFILE_SEGMENT, PROFILE_KEEP and PROFILE_KEEP_BYTES are optional).
// PROFILE_OUT names the profile's file or, with PROFILE_SEGMENT, the
// directory of its segments, created if missing (see
// profiler.WithSegment). PROFILE_RECENT keeps the recent past in memory
// (see profiler.WithRecent), and without PROFILE_OUT it is all the
// profile keeps. Without either it does nothing, but for a
// warning about any other PROFILE_* variable set, which has no effect
// then; a misspelt or useless PROFILE_* variable is reported once (see
// profiler.EnvOptions), a malformed profiling variable is reported on
// stderr, and nothing starts (a malformed PROFILE_SIGNALS is reported,
// and signals are left alone).
//
// Call Stop at the end of main, before any os.Exit, to finish the
// profile: the file PROFILE_OUT, or with segments the last one:
//
//	func main() {
//		defer auto.Stop()
//		// ...
//	}
//
// A process that ends otherwise loses only the end of its profile. To a
// file, until Stop, the samples stream into the directory
// PROFILE_OUT.part (profiler.PartDir) with a checkpoint every few seconds:
// a process that returns from main without Stop, calls os.Exit or
// log.Fatal, panics, or dies by a signal, SIGKILL or the OOM killer leaves
// its profile as of its last checkpoint. The tachyon command reads
// PROFILE_OUT.part where PROFILE_OUT is missing, and the next run with
// the same PROFILE_OUT recovers it into a finished file beside it. With
// segments, the finished segments are in the directory and such a process
// loses only its open segments.
//
// The package does not touch signals: the program's own handlers, and the
// default actions when it has none, stay exactly as without the import.
// PROFILE_SIGNALS=on (see EnvSignals) finalizes the profile on SIGINT and
// SIGTERM and then lets the signal kill the process; it is for programs
// that do not handle these signals themselves.
package auto
