// Package spx writes profiles as "full" reports of SPX, PHP's profiler
// (php-spx v0.4.x), so that SPX's web UI can list and open them: a KEY.json
// metadata object and a KEY.txt.gz event log.
//
// The event log is a single-threaded timeline of properly nested call start
// and end events carrying cumulative metric values (wall time "wt" and, when
// known, CPU time "ct", both in nanoseconds). The exporter turns a sequence of
// sampled stacks into such events the way SPX's own sampling mode does: at
// each sample the frames that disappeared from the previous stack are closed
// (innermost first) and the new ones opened (outermost first), and Close ends
// every call still open, so the log is always balanced.
//
// WriteDir maps a Tachyon file onto reports in a directory: one per
// goroutine (real timestamps; all of them up to MaxReports, or the
// Options.Top busiest), or one report with the goroutines laid end to end
// (each sample lasting one sampling interval). Function names
// are Go symbols written as pkg::symbol and escaped for the UI. Label
// frames (tachyon.LabelOf), the outermost frames of a labelled goroutine's
// samples, are left out: SPX has no labels, and as functions they would
// open and close a call at the root on every change of labels. A labelled
// file converts as its samples without labels.
//
// SPX's "Called" counts are artefacts of the stack diff: a function present in
// consecutive samples is one call.
package spx
