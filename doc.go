// Package profiler profiles a running Go program into a Tachyon v2 file: an
// in-process sampler that sees every goroutine, on and off CPU, with its id,
// state and stack (see package sampler for how).
//
// # Profiling a Go program
//
// The one-liner, in the style of runtime/pprof and github.com/pkg/profile:
//
//	defer profiler.Start(profiler.WithPath("prof.bin")).Stop()
//
// Start never returns nil and never panics: if profiling cannot start, the
// Profile's Err says why (the problem is logged too) and Stop returns the same
// error. Callers who want the error at once write
//
//	p := profiler.Start(profiler.WithPath("prof.bin"), profiler.WithMode(profiler.CPU))
//	if err := p.Err(); err != nil { ... }
//	defer p.Stop()
//
// Until Stop, a profile written to a path streams into PartDir, where a
// checkpoint every few seconds (see WithCheckpoint) keeps it readable
// after a process that dies; Stop finishes the stream and renames it over
// the path. Stop is idempotent, safe from
// any goroutine, and returns (and logs once) the first problems met while
// sampling, writing or exporting. Only one profile runs at a time: a
// second Start fails with ErrRunning.
//
// Other ways in: package auto starts profiling from the PROFILE_OUT
// environment variable with a blank import; RunTests does the same for a
// test binary from TestMain; package httpprof serves profiles over HTTP like
// net/http/pprof.
//
// # Which backend ran
//
// The sampler reads the execution trace, through whichever of the runtime's
// two trace slots (a flight recorder's, or trace.Start's) the application
// leaves free. It falls back to runtime.Stack snapshots when the
// application holds both, or when no trace reader it has reads this Go
// version's trace. The Tachyon header has no field for this, and the
// profiler does not invent one (no synthetic frame or thread):
// Profile.Backend reports it, and so do the log lines written at Start and
// Stop ("backend trace" or "backend snapshot"). With the default
// Auto, the sampler also moves to snapshots while the trace would
// cost more (goroutines switching hundreds of thousands of times a second);
// Stats.Switches and the Stop log line list those switches.
//
// # The recent past, on demand
//
// WithRecent(d, maxBytes) (PROFILE_RECENT=60s) keeps the last d of the
// samples in memory, at most maxBytes of it, in the writer's own encoding
// (package recent), beside the file, segments or checkpoints, or alone
// with WithNoFile; a profile in segments keeps DefaultRecent (a minute)
// within DefaultRecentBytes (16 MiB) of samples unless told otherwise.
// Recent(w, d)
// writes a finalized Tachyon file of the last d while profiling goes on,
// after the few seconds the sampler takes to write the last samples, and
// returns the exact span it covers; httpprof serves it (?recent=30s).
// Capture(reason), for code that knows a moment mattered (a request past
// its deadline), returns at once and writes the time around the call
// (DefaultCaptureBefore before it, DefaultCaptureAfter after) as a file
// named for the time and the reason, in the capture directory
// (WithCaptureDir, PROFILE_CAPTURE_DIR, or "captures" in the segments'
// directory) and to the OnCapture functions (upload/auto pushes it
// labelled capture=REASON), at most one per WithCapturePeriod (a minute);
// the directory keeps the newest DefaultCaptureKeep (WithCaptureKeep);
// PROFILE_RECENT_SIGNAL=USR1 lets an operator take one with kill -USR1.
//
// # Memory
//
// The profiler's heap is bounded by what the program has, not by how long
// it runs: a fixed part (the record buffer, pending runs and zstd encoder of
// a writer per open segment, up to segment.MaxOpen, the pipe and tables of
// the trace reader), plus a part per live goroutine (its record in the
// sampler, its thread in the writers and the segment writer, its state in
// the trace reader), plus a part per distinct
// frame (strings, frame and stack tables), plus three times one generation
// of the runtime's trace (about a second of it: the generation the runtime
// writes into the pipe, the one the trace reader reads in place, and one
// kept for reuse, so growing with the scheduler's events; up to 64 MiB
// more while the reader lags).
// Ended goroutines are forgotten. TestHeapBoundedUnderChurn checks the
// bound under churn; the figures of each part, and what was measured, are
// in bench/MEASUREMENTS.md. The runtime allocates while it writes the
// trace; the sampler, its trace reader and the writer allocate nothing per
// event, tick or generation once a program's goroutines and stacks are
// known (sampler.TestSteadyStateAllocs; TestIdleAllocatesNothing for the
// whole profiler, where a checkpoint allocates a few bytes for the mark it
// writes and renames).
//
// # Samples
//
// Thread id = goroutine id, interpreter id = 0. The header's start time is the
// time of Start (µs since the Unix epoch) and its interval is 1e6/rate µs;
// every sample carries its real timestamp, because an in-process sampler
// cannot always keep its rate under load. Status bits follow package
// sampler's table, through tachyon.StatusOf (running: ON_CPU|HAS_GIL;
// runnable: GIL_REQUESTED, or HAS_GIL alone for a goroutine holding a P
// without CPU samples; syscall: UNKNOWN|GIL_REQUESTED; blocked: none;
// panicking adds HAS_EXCEPTION).
package profiler
