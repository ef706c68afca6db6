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
//	p := profiler.Start(profiler.WithPath("prof.bin"), profiler.WithMode(sampler.CPU))
//	if err := p.Err(); err != nil { ... }
//	defer p.Stop()
//
// Stop finalizes the file; it is idempotent, safe from any goroutine, and
// returns (and logs once) the first problems met while sampling, writing or
// exporting. Only one profile runs at a time: a second Start fails with
// ErrRunning.
//
// Other ways in: package auto starts profiling from the PROFILE_OUT
// environment variable with a blank import; RunTests does the same for a
// test binary from TestMain; package httpprof serves profiles over HTTP like
// net/http/pprof.
//
// # Which backend ran
//
// The sampler reads the execution trace unless another component already
// runs runtime/trace (or the trace parser does not know this Go version), in
// which case it falls back to runtime.Stack snapshots. The Tachyon header has
// no field for this, and the profiler does not invent one (no synthetic frame
// or thread): Profile.Backend reports it, and so do the log lines written at
// Start and Stop ("backend trace" or "backend snapshot"). With the default
// sampler.Auto, the sampler also moves to snapshots while the trace would
// cost more (goroutines switching hundreds of thousands of times a second);
// Stats.Switches and the Stop log line list those switches.
//
// # Memory
//
// The profiler's heap is bounded by what the program has, not by how long
// it runs: about 12 MiB (the writer's record buffer, pending runs and zstd
// encoder, the pipe and tables of the trace reader), plus 2 KiB per live
// goroutine (its record in the sampler, its thread in the writer, its state
// in the trace parser), plus 1 KiB per distinct frame (strings, frame and
// stack tables), plus three times one generation of the runtime's trace
// (about a second of it, held whole by the trace reader while it is
// parsed: some 25 bytes per scheduler event). Ended goroutines are
// forgotten; TestHeapBoundedUnderChurn checks the bound under churn. The
// runtime allocates while it writes the trace; the sampler, its trace
// reader and the writer allocate nothing per event, tick or generation once
// a program's goroutines and stacks are known
// (sampler.TestSteadyStateAllocs).
//
// # Samples
//
// Thread id = goroutine id, interpreter id = 0. The header's start time is the
// time of Start (µs since the Unix epoch) and its interval is 1e6/rate µs;
// every sample carries its real timestamp, because an in-process sampler
// cannot always keep its rate under load. Status bits follow package
// sampler's table (running: ON_CPU|HAS_GIL; runnable: GIL_REQUESTED;
// syscall: ON_CPU|UNKNOWN; blocked: none).
package profiler
