// Package sampler samples every goroutine of the running process, on and off
// CPU, with its id, state and stack, into a Sink: the stream it defines
// (sink.go), one Goroutine handle per goroutine id, or one number where the
// Sink implements Streams (kept in the sampler's record of the goroutine,
// off the Go heap). Package profiler gives it a Tachyon writer, each
// goroutine a numbered thread of interpreter 0.
//
// Start begins sampling and Stop ends it; only one Sampler runs per
// process. Samples reach the Sink from one goroutine at a time: the running
// backend's (Auto replaces the backend, and with it the goroutine, when it
// switches); Stop returns once the last of them has ended. Timestamps are
// wall-clock microseconds since the Unix epoch, stacks are frame indices
// innermost first, at most tachyon.MaxWriteDepth (256) of them.
//
// # Backends
//
// The trace backend (the default) reads the runtime execution trace
// through a pipe (internal/handoff: the runtime's writer copies each write
// once, never waits for the parser, and wakes it once a generation, which
// the parser reads where the pipe holds it) and parses it in-process, with
// the CPU profiler
// alongside (its samples reach the trace with goroutine ids). It takes
// the runtime's flight-recorder slot if free, else its trace.Start slot
// (see Sharing the tracer below). The reader is internal/gotrace, which
// reads only what goroutines need from a Go 1.26 trace, at a fraction of
// golang.org/x/exp/trace's cost (bench/MEASUREMENTS.md) and with its
// events, time for time (its differential test); a trace of another
// version is read with golang.org/x/exp/trace (source.go). A state
// machine per goroutine (tracegor.go) keeps its state, wait reason and the
// stack of its last transition. The runtime hands the trace over in
// generations of about one second, so samples are written in batches, for
// virtual ticks at the configured rate with the trace's real timestamps: the
// rate costs nothing at the source and a starved sampler goroutine misses no
// tick, its samples are only about a second late. Stop stops the trace
// (tracestop.go), which flushes the last generation, and writes everything
// before it returns; no tick after the Stop request is sampled (the runtime
// goes on tracing while its tracer stops, for seconds with a million
// goroutines).
// Once the tracer has stopped, the parser has MaxStopParse for what is
// left: past it, everything parsed is written and the samples of the
// ticks not reached are counted in Stats.Unparsed and said in the log,
// and the goroutines never met (parked since before a profile shorter
// than a generation) in Stats.Unmet (unmet.go). A generation can be
// parsed only once the next has begun, so a busy program's generation
// arrives as one burst of
// work; the parser paces itself (pace.go) to about a quarter of a CPU while
// it keeps up, so that the burst does not take a P from the application
// all at once, and runs flat out while it is behind and during Stop.
//
//   - Wall mode: at every tick, one sample of every live goroutine, from
//     the first tick to the last. A goroutine that is runnable, blocked or
//     in a system call has the stack where it stopped, which the trace
//     records. A goroutine that holds a P (running, to the scheduler)
//     takes its stacks from its CPU samples only (oncpu.go): once a
//     generation each CPU sample pays for one tick of its goroutine
//     (Rate/100 in general), the running tick nearest in time, so that
//     over a generation its running ticks have the stacks of its CPU
//     samples, as often as runtime/pprof would count them. The stacks the
//     scheduler sees (a yield, a preemption at a function's entry, the
//     return from a system call) are biased toward those places and never
//     decide where a goroutine ran. A running tick no CPU sample pays for
//     held a P while its thread did not run (the machine or a CPU quota
//     was busy): it is written as runnable, under a "[no CPU sample]"
//     frame at the stack of the goroutine's nearest CPU sample under the
//     same labels, else where the scheduler last saw it
//     (Stats.NoCPUSample). A preempted goroutine's stack that the trace's
//     frame-pointer unwinding cut short of a frame (a frameless leaf
//     function's caller) gets the frame back from its CPU samples
//     (leafcaller.go). A CPU sample left over (CPU time in a system
//     call, or short runs between ticks) makes another queued tick of its
//     goroutine running; one of a goroutine that ended with no tick left
//     pays for a running tick without a CPU sample of a goroutine from
//     the same creation site (orphans.go: a goroutine shorter than a
//     tick's period seldom has both a tick and a CPU sample of its own).
//     So a wall profile's on-CPU time is the CPU profiler's. With
//     Config.NoCPUSamples, running ticks are on CPU at
//     the stack where the scheduler last saw the goroutine.
//   - CPU mode: one sample per CPU-profile sample, at the sample's time;
//     one taken outside any goroutine (the scheduler's own work) on
//     RuntimeThread, under the runtime's frame. The rate is Config.Rate,
//     capped by the kernel (CONFIG_HZ per thread: 250 a second on many
//     distributions).
//
// The process has one CPU profile. If the application runs its own when
// the trace backend starts, the backend shares it (its samples reach the
// trace all the same, at the application's rate). When the application
// stops the CPU profile, its own or the backend's, a watcher starts it
// again at the mode's rate (cpuprof.go): it looks every 50 ms while the
// profile is off or the application's, every 250 ms while the backend's
// own runs, and takes it once the profiling timer has been off for 300 ms,
// so a restart follows a stop within 600 ms. pprof.StopCPUProfile writes
// the profile after the timer is off, holding pprof's lock: a take that
// waited on that lock may have got the CPU profiler just before the
// application's next pprof.StartCPUProfile; it gives it back at once, says
// so, and the watcher waits twice that stop's length from then on. The
// backend renews its own profile every minute (cpuRenewEvery): pprof keeps
// what it needs of every sample until a profile stops. With
// Config.AwaitCPUProfile the backend leaves the CPU profiler free at
// Start for an application about to start its own (a test binary's
// -test.cpuprofile), and shares that one once it runs. Stats.CPUProfile
// and Stats.CPUGap say so, Config.Log at once.
//
// A goroutine that has not run since tracing began is reported by the
// runtime only at the end of the first generation, with its stack; its
// ticks since the first are written then. One that ran first is reported
// without a stack: its ticks wait for its first transition with a stack
// (where it blocks again, most often where it was blocked) and take it.
// So every goroutine alive at Start has a sample at the first tick. A tick
// costs nothing by itself: a goroutine's ticks are written as one run of
// identical samples (Goroutine.RepeatEvery) when its stack over them is
// known: when it changes state, every fourth generation (a quarter of the
// goroutines at each, each flushed after: Goroutine.Flush) and at Stop,
// so 10,000 parked goroutines at 100 Hz cost a few bytes of copying per
// sample and the sink sees runs of about four seconds.
//
// The runtime reports every goroutine's status at each generation. The
// reports that repeat a goroutine's state and latest stack are left out as
// they are read (gotrace.Reader.SkipSame), so that a generation costs what
// changed, not how many goroutines there are: a parked goroutine costs a
// status report read and, every fourth generation, one run written. A
// system call that returns with its P between two ticks, as most of a
// busy server's reads and writes do, and a goroutine's start between two
// ticks, are folded in as the reader meets them (gotrace.Reader.Elide and
// Start, elide.go): what the transitions would change is done there,
// without their path through the reader and the state machine, and the
// samples are the same (TestElideSameSamples). A
// goroutine's record holds its state, stack, clock and label set
// (TestRecordSizes bounds its size); what only a goroutine that ran
// lately, waits for its first stack or is in a region or task needs (its
// queued runs, CPU samples, regions and tasks) is taken from a pool and
// given back once it has not run for a settle period. bench/MEASUREMENTS.md
// has the cost per goroutine at 10,000 to a million (BenchmarkScale,
// BenchmarkTraceParked).
//
// Goroutines already blocked when tracing starts come without a wait
// reason; it is inferred from their stack's top runtime frames
// (runtime.chanrecv: "chan receive", runtime.selectgo: "select", time.Sleep:
// "sleep", sync.(*Mutex).Lock: "sync.Mutex.Lock", internal/poll.runtime_pollWait:
// "IO wait", ...). The same inference refines the trace's coarser reasons
// ("sync", "network"), so both backends name a wait identically. The frames
// between a wait and the runtime (runtime_pollWait, the poller's wrappers,
// the sync package's runtime_Semacquire*) are dropped on every path, so one
// kind of wait has one tail whether the goroutine blocked before tracing
// began or after, and whichever backend sampled it.
//
// The trace costs CPU per goroutine switch (the runtime writes the events
// with stacks, gotrace reads them), not per sample: Auto takes it to be a
// fixed cost a switch (nsPerSwitch in adaptive.go, a tunable whose evidence
// is in bench/MEASUREMENTS.md). Under Auto, a supervisor goroutine watches
// the scheduler's switch rate (runtime metric /sched/latencies:seconds)
// from 20 ms after Start and every 100 ms (the interval doubles, up to
// 800 ms, while the trace costs under 0.5 %): while the trace would cost
// more than 1 % of the machine over each of the last two intervals (a
// burst within one, such as the collector's sweeper yielding thousands of
// times in a few milliseconds, is not a cost that lasts), the process has
// at most 1,000 goroutines
// and two trial dumps show the snapshot backend would cost less than half
// of that, at no less than a quarter of the rate, it runs the snapshot
// backend instead. That is a program bouncing work between a few goroutines
// hundreds of thousands of times a second, whose dozen goroutines dump in a
// fraction of what their switches cost the trace. A trial that keeps the
// trace is not repeated for a second, then for twice as long after each (up
// to a minute), while the trace's cost has not doubled. It switches back
// when the estimated trace cost falls under 1 % or under half the
// snapshots' measured cost, or once the snapshots refuse a dump (a count
// of goroutines that would stop the world longer than MaxSnapshotPause):
// dumps not taken are samples lost. Each switch doubles the time before the next
// one may happen; Stop's Stats.Switches lists them with the estimates that
// decided. The outgoing backend emits everything before the next one
// starts, and both normalise stacks alike, so a goroutine reads the same
// across a switch.
//
// The snapshot backend is the fallback when the trace cannot be used: the
// application holds both of the runtime's trace slots (its traces are left
// alone; Stats.Fallback says so), or neither trace reader reads this Go's
// trace. It parses runtime.Stack(buf, true) dumps (one reused buffer; no
// allocation per dump in steady state). runtime.Stack stops the world for
// the whole dump, for a time that grows with the goroutines and their
// depth (bench/MEASUREMENTS.md), so a governor stretches the interval to
// 100 times the last dump's pause: the world stays stopped for at most 1 %
// of wall time. Each dump then stands for the ticks of the rate since the
// one before (and one at Stop for those since the last), so that the
// samples still add up to the time each goroutine spent, resolved only to
// the dumps' interval; Stats.Dumps says how many were taken. A dump whose
// estimated pause exceeds MaxSnapshotPause is not taken (Stats.Refused
// says how many and why; a pause one stall made long is measured again,
// see MaxSnapshotPause), and the buffer is sized from the previous dump
// so that one dump stops the world once. A dump that fills the buffer's
// bound (64 MB) is cut short and not used, nor counted as an instant
// (Stats.Refused says so): the goroutines past the cut, always the same
// ones, would miss it and be taken for ended. It cannot tell running
// goroutines from runnable ones (the dump preempts them first) and has no
// PCs, so it tells the Observer of no on-CPU sample. In CPU mode it
// samples only goroutines that are running, runnable or in a system call.
// Start never fails because the trace is unavailable; Sampler.Backend and
// Stats say which backend ran and Stats.Fallback why.
//
// # Sharing the tracer
//
// The runtime (Go 1.25 and later) lets two consumers read the execution
// trace at once: one trace.Start and one runtime/trace.FlightRecorder. The
// trace backend takes one slot, in this order, so that the application
// keeps what it most likely uses, trace.Start (net/http/pprof's
// /debug/pprof/trace, a tracing library's periodic execution traces):
//
//   - The flight recorder's, if free and the process has at most 2,000
//     goroutines. The backend snapshots its own recorder every second (every
//     half second while the trace comes at 256 KiB a second or more, so that
//     Stop's wait for the parse of the generation before its own is short)
//     and at Stop, and writes the generations it has not written yet into
//     the pipe, one continuous trace. Each snapshot ends the generation in
//     progress (the runtime also ends one every second), and the runtime
//     starts each generation with the status of every goroutine: with many
//     goroutines this doubles the trace's cost, so beyond 2,000 the backend
//     takes trace.Start's slot first, and under Auto the supervisor moves
//     there when the goroutines outgrow it (a Switch says so). The recorder
//     keeps a few seconds of trace for the snapshots. A parser held up
//     longer than that (a starved or overloaded process) does not read a
//     trace with a hole: under Auto it goes on through trace.Start, where
//     the runtime keeps the trace until it is read, and a Switch says so
//     (the profile misses those seconds); a requested Trace backend ends
//     with an error in Stats.Err.
//   - trace.Start's, if the application holds the flight recorder's (or
//     first, with many goroutines; then the flight recorder's if the
//     application holds trace.Start's).
//   - Neither, if the application holds both: the snapshot backend runs.
//
// What keeps working in the application while the backend traces:
//
//	the application, at Start      backend reads through     its trace.Start    its FlightRecorder
//	uses neither, or trace.Start   the flight recorder (3)   works, any time    cannot start (1)
//	runs a FlightRecorder          trace.Start               cannot start (2)   works, WriteTo too
//	runs both                      none: snapshots           works              works
//
// (1) FlightRecorder.Start returns "flight recorder already enabled";
// (2) trace.Start returns "execution tracer already enabled", and
// /debug/pprof/trace answers with an error. Both at once, without
// blocking, and the profile goes on. (3) With more than 2,000 goroutines,
// trace.Start unless the application holds it: then its flight recorder
// can start and its trace.Start cannot.
//
// Under Auto, while the snapshot backend runs no slot is held, and a switch
// back to the trace takes a slot as Start does (snapshots go on if the
// application holds both). Beside the application's flight recorder, the
// runtime's writer, which serves both, writes into the backend's pipe
// without waiting for its parser, and the recorder's WriteTo waits only
// for the runtime (it ends a generation, which the writer must have
// written). A parser that falls 64 MiB behind ends its trace with an error
// (under Auto, the backend starts again through trace.Start) rather than
// hold the writer or the memory.
//
// # Status byte
//
// Goroutine states map onto tachyon.State, and so onto the status bits
// tachyon.StatusOf gives (readers map them back with tachyon.Status.State):
//
//	goroutine state                          status bits
//	running (on a CPU: a CPU sample says so) OnCPU | HasGIL
//	on a P without CPU sample (wall mode)    HasGIL (runnable)
//	runnable, preempted (wants a P)          GILRequested
//	in a system call                         see tachyon.StatusOf (not on CPU)
//	blocked, any wait reason                 none (0)
//	unknown, idle, dead                      Unknown
//	panicking (runtime.gopanic on stack)     HasException added
//
// A blocked goroutine's wait reason becomes a synthetic innermost frame
// (tachyon.WaitFrame) with function "[chan receive]" (the reason in
// brackets), no file and line 0, unless Config.NoWaitReasonFrames is set.
//
// # Frames
//
// Frames carry function, file and line; inlined frames are kept. Both
// backends intern each distinct frame once through Sink.Frame and cache the
// index (per PC for the trace, per function and file:line for the text
// dump), so steady-state sampling interns nothing. Frames are normalised the
// way runtime.Stack prints them, so the same goroutine has the same stack in
// both backends:
//
//   - unexported runtime functions are dropped (runtime.gopark,
//     runtime.chanrecv1, runtime.goexit, runtime.main, runtime.asyncPreempt);
//     exported ones (runtime.Gosched, runtime.GC) are kept;
//   - runtime.gopanic, unless innermost, is kept and named "panic";
//   - compiler-generated wrappers (file "<autogenerated>") are dropped;
//   - frames of code that is not Go (names without a package: the race
//     detector's racecall and __tsan_read, C called through cgo) are
//     dropped;
//   - runtime system goroutines (whose start function is in package
//     runtime, other than runtime.main, or whose stack where they stop
//     holds unexported runtime frames only) are sampled under an
//     outermost tachyon.RuntimeRoot frame, "[runtime]", which views show
//     as one group after the program's goroutines (the trace backend; the
//     snapshot backend's runtime.Stack does not list them);
//   - the profiler's own goroutines are left out: by id, the parser's and the
//     snapshot loop's, and every goroutine package own says is the profiler's
//     (the supervisor, the watchers, the flight recorder's poller, and the
//     goroutines of the rest of the profiler: the segment writer's, the crash
//     recovery's, the uploader's, auto's signal handler, httpprof's handler);
//     the goroutines runtime/trace and runtime/pprof start for it by their
//     start function. The trace backend asks own when it first meets a
//     goroutine, the snapshot backend at every dump, and every sample of a
//     goroutine that is the profiler's when it is written is left out too (one
//     the trace backend met before it was registered, one that is the
//     profiler's for a while only). A goroutine is known by its start
//     function, read off the one-frame stack of its creation or the frame
//     above runtime.goexit in a complete stack; never by the functions it
//     calls, so a goroutine inside trace.WithRegion is sampled like any other.
//
// Stack depth. The runtime hands the trace backend at most 128 frames of a
// goroutine's stack where it changes state, and 64 of a CPU sample; the
// snapshot backend's runtime.Stack prints a deep stack's innermost and
// outermost 50 frames. A stack cut before its root ends in a "[truncated]"
// frame: 128 frames where a goroutine changes state, or 64 of a CPU sample
// without runtime.goexit at the bottom (a CPU sample's complete stack ends
// there; the trace's other stacks leave it out). The gap runtime.Stack
// leaves is a "[frames elided]" frame, so that a flame graph never shows a
// cut as a root. A stack deeper than tachyon.MaxWriteDepth (256) frames
// keeps its innermost ones.
//
// A CPU sample cut short inside the runtime (a stack of hidden runtime
// frames only, such as [runtime.nanotime1]) says nothing of where a
// goroutine runs: wall mode does not take it as evidence, and CPU mode
// writes it with its innermost frame, so that the time is still counted.
//
// # Labels
//
// The trace backend writes every sample of a goroutine with the labels it
// had at the sample's time, as label frames outermost on the stack
// (tachyon.LabelFrames), in every state, in both modes:
//
//   - its pprof labels, as profiler.Do and profiler.SetGoroutineLabels
//     write them into the trace (internal/tracelabel): the whole set of
//     its latest label event; a goroutine it creates starts with them, as
//     runtime/pprof's labels are inherited;
//   - region (tachyon.LabelRegion): the type of its innermost active
//     runtime/trace region (trace.WithRegion, StartRegion);
//   - task (tachyon.LabelTask): the type of the task of that region if it
//     is in one, else of the latest task (trace.NewTask) the goroutine
//     began and has not ended. Tasks and regions are not inherited;
//   - created_by (tachyon.LabelCreatedBy): where the goroutine was
//     created, the innermost frame the normalisation keeps of its
//     creator's stack at the go statement, which the trace records with
//     each creation ("main.serve server.go:42"), unless
//     Config.NoCreationLabels. A goroutine created before the trace
//     began has none (creation.go);
//   - leak (tachyon.LabelLeak): "unreachable" from the goroutine leak
//     profile that found the goroutine can never run again (Go 1.27 and
//     later, with Config.LeakProfile; leakprof.go).
//
// A change takes effect at the first tick after it (a tick at the same
// nanosecond sees the labels before it), so a region's samples total its
// duration to a tick either side. A sample's stack and labels tell the
// same moment: a wall-mode tick that a CPU sample pays for (see
// Backends) carries the labels of that CPU sample's moment, so that
// each label set's CPU time is its CPU samples', and a tick without one
// borrows a stack only from a CPU sample under its own labels. The runtime's system goroutines (under
// "[runtime]") carry none. Label frames survive the depth bound: code
// frames make room for them.
//
// The trace is read from its start to its end, so a region or task that
// spans generations labels every tick between. What began before the
// trace backend started (before Start, or, under Auto, while snapshots
// ran) is not in the trace, and the runtime does not report active
// regions at a generation's start: such a region or task is not carried,
// a region in a task whose begin the trace lacks has no task label, and
// pprof labels set before are not known until the goroutine sets its
// labels again. No label is written rather than one that may be wrong.
//
// The trace backend asks for label events (tracelabel.Enable) while it
// runs and stops asking when it stops, Auto's switches to snapshots
// included. The snapshot backend's samples carry one label only,
// created_by, from runtime.Stack's "created by" lines (for every
// goroutine, those created before Start too): a dump has no other. Its
// function is the one that holds the go statement, where the trace names
// the function inlined there, if the statement is in an inlined call.
//
// # Observers
//
// Config.Observer is told of what the sampler sees beside the samples it
// writes, by the goroutine that writes them, right after each write: the
// innermost PC of every on-CPU sample (Observer.OnCPU), such as a
// PC-level export counts. Samples left out as the profiler's own are not
// told. OnCPU is the only kind of event today; other kinds are to come
// through optional interfaces of an Observer, so that an Observer need
// not change as kinds are added. Tee tells several observers.
//
// # Safety
//
// A Sink that is a Watermarker is told, once a generation (trace backend;
// ts 0 before the third) or after each dump (snapshot backend), that no
// sample older than ts will be written.
//
// Panics in a sampler goroutine (from the parser or the Sink) are
// recovered into Stats.Err; whatever ends the parser, the pipe is closed so
// that the runtime's trace writer keeps nothing more (it never waits). The first error a Goroutine
// returns stops the writing (the parser stops, the samples not written are
// counted in Stats.Dropped) and is Stop's error, wrapped once. Both
// backends forget goroutines that end (Goroutine.Forget), so their state
// is bounded by the live goroutines. Stop is idempotent and safe from any
// goroutine, but not from inside the Sink.
package sampler
