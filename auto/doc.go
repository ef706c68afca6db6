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
//   - On SIGINT or SIGTERM the package stops the profile, then re-raises the
//     signal with its default handling, so the process dies exactly as it would
//     have without the import (exit by signal). It installs this handler only
//     while profiling; a program with its own SIGINT/SIGTERM handling should
//     call Stop itself from that handler instead.
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
