// Package pprof converts a Tachyon profile into a pprof profile
// (github.com/google/pprof/profile), the format of "go tool pprof" and
// "go build -pgo".
//
// Each distinct (stack, goroutine, state) becomes one pprof sample with
// the string labels "goroutine" (the thread id, which the Go sampler sets
// to the goroutine id), "state" (running, runnable, blocked, syscall or
// unknown; see tachyon.Status.State) and, where the Go sampler recorded
// one as a synthetic innermost frame such as "[chan receive]",
// "wait_reason". That frame is removed from the stack. Past
// Options.MaxGoroutines goroutines, only the busiest keep a goroutine
// label of their own and the others share goroutine="other"; a negative
// MaxGoroutines drops the label, adding up the samples that differed only
// by it. Label filters then work as usual, and -tagleaf makes frames of
// them:
//
//	go tool pprof -tagfocus state=blocked -sample_index=wall profile.pb.gz
//	go tool pprof -sample_index=wall -tagleaf=wait_reason,state profile.pb.gz
//
// The program's labels (tachyon.LabelOf: the label frames a sampler puts
// outermost, for pprof labels set with profiler.Do and for runtime/trace
// tasks and regions) become string labels of the same key and value, and
// leave the stack, as the wait reason does; they are beside goroutine,
// state and wait_reason, so that filters combine them:
//
//	go tool pprof -tagfocus http.route=/api -tagshow http.route profile.pb.gz
//	go tool pprof -sample_index=wall -tagroot=http.route,state profile.pb.gz
//
// A program key that is one of the exporter's (goroutine, state,
// wait_reason) is exported behind ProgramLabelPrefix, "label.state" for
// "state" (again, until it names no other key of the sample), so that the
// exporter's labels keep their meaning for every filter.
//
// A wall profile's samples carry three values: "samples" (count), "wall"
// (the count times the sampling interval, in nanoseconds) and "on_cpu"
// (the same for the samples of running goroutines, else 0: a goroutine in
// a system call is in the kernel, most often blocked there). The default
// is on_cpu, so that go tool pprof -top sums time running, not time
// parked; a profile without running samples defaults to wall. A CPU
// profile (every sample on a CPU, tachyon.InferMode; or Options.Type CPU,
// which keeps the on-CPU samples only) carries "samples" and "cpu", as
// runtime/pprof writes them and go build -pgo reads them.
//
// Functions carry their file, and with Options.Binary (AtStop: the
// running executable) their start line, which go build -pgo needs.
// Tachyon frames record no addresses, so every frame, an inlined one too,
// is a location of its own, one per (function, line), up to MaxLocations;
// past it a function's further lines share one location at line 0. The
// main mapping is named after the profiled program (see Options.Binary).
//
// # Profiles for go build -pgo
//
// go build -pgo reads the first of the "samples" and "cpu" values it
// finds as CPU time, and refuses a profile without start lines. So a PGO
// profile is a CPU profile (Type CPU: the on-CPU samples only, whatever
// the file's mode; a wall profile's "samples" count parked goroutines
// too) with Options.Binary set. At Stop, AtStop takes the running
// executable as the binary:
//
//	profiler.Start(profiler.WithExport("default.pgo", pprof.AtStop(pprof.Options{Type: pprof.CPU})))
//
// then copy default.pgo into the main package's directory, where go
// build -pgo=auto (the default) finds it. From a file, the command
// "tachyon pgo FILE --binary PROG -o default.pgo" does the same, PROG
// being the profiled executable.
package pprof
