// Package auto starts profiling when the program starts, from the
// environment, with a blank import:
//
//	import _ "github.com/gotachyon/profiler/auto"
//
// When PROFILE_OUT names a file, the package's init starts a profile into it
// (PROFILE_MODE "wall" or "cpu" and PROFILE_RATE in Hz are optional; see
// profiler.EnvOptions). Without PROFILE_OUT it does nothing at all.
//
// The file must be finalized before the process exits. Two ways are covered:
//
//   - On SIGINT or SIGTERM the package finalizes the profile, then leaves
//     the signal the effect it would have had without the import. If the
//     program's own handler received it too (a signal.Notify or
//     signal.NotifyContext channel it was waiting on), nothing more
//     happens: its shutdown runs to completion and it exits with its own
//     status, and it is never sent the signal a second time. If nobody
//     else received it, the package raises it again with nobody listening,
//     so the process dies by the signal as it would have. Who received a
//     signal is read off the execution trace, which records which
//     goroutines the os/signal package woke (sampler.Stats.SignalWakes);
//     when the trace did not cover the signal (the snapshot backend ran),
//     the signal is not raised again and a line says to send it again.
//     PROFILE_SIGNALS=off leaves both signals entirely to the program.
//
//   - On a normal exit, call Stop at the end of main (os.Exit skips deferred
//     calls, so call it before any os.Exit).
//
// For example:
//
//	func main() {
//		defer auto.Stop()
//		// ...
//	}
//
// A program that exits without either (os.Exit elsewhere, a panic, log.Fatal)
// leaves an unfinished file that readers reject.
package auto
