// Package auto starts profiling when the program starts, from the
// environment, with a blank import:
//
//	import _ "github.com/gotachyon/profiler/auto"
//
// When PROFILE_OUT names a file, the package's init starts a profile into it
// (PROFILE_MODE "wall" or "cpu", PROFILE_RATE in Hz, PROFILE_CHECKPOINT and
// the segment variables are optional; see profiler.EnvOptions). Without
// PROFILE_OUT it does nothing at all.
//
// Call Stop at the end of main, before any os.Exit, to write the finished
// profile to PROFILE_OUT:
//
//	func main() {
//		defer auto.Stop()
//		// ...
//	}
//
// Nothing is lost when a process ends otherwise. Until Stop, the samples
// go to finished checkpoint files, one every few seconds, in the directory
// PROFILE_OUT.part (profiler.PartDir): a process that returns from main
// without Stop, calls os.Exit or log.Fatal, panics, or dies by a signal,
// SIGKILL or the OOM killer leaves every checkpoint finished before it
// ended, and loses only the last few seconds. The tachyon command reads
// PROFILE_OUT.part where PROFILE_OUT is missing, and the next run with
// the same PROFILE_OUT recovers it into a finished file beside it.
//
// The package does not touch signals: the program's own handlers, and the
// default actions when it has none, stay exactly as without the import.
// PROFILE_SIGNALS=on (see EnvSignals) finalizes the profile on SIGINT and
// SIGTERM and then lets the signal kill the process; it is for programs
// that do not handle these signals themselves.
package auto
