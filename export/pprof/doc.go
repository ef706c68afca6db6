// Package pprof converts a Tachyon profile into a pprof profile
// (github.com/google/pprof/profile), the format of "go tool pprof".
//
// Each distinct (stack, goroutine, state) becomes one pprof sample with two
// values, the number of Tachyon samples and that count times the sampling
// interval in nanoseconds, and the string labels "goroutine" (the thread id,
// which the Go sampler sets to the goroutine id), "state" (running,
// runnable, blocked, syscall or unknown; see tachyon.Status.State) and, where
// the Go sampler recorded one as a synthetic innermost frame such as
// "[chan receive]", "wait_reason". That frame is removed from the stack.
// Label filters then work as usual:
//
//	go tool pprof -tagfocus state=blocked profile.pb.gz
//	go tool pprof -tagignore state=running profile.pb.gz
//
// The second value is "wall/nanoseconds", or "cpu/nanoseconds" when every
// sample was on a CPU (a profile of the CPU mode), unless Options.Type
// forces one. Functions carry their file; Tachyon frames record neither a
// function's start line nor inlining, so StartLine is 0 and every frame is
// a location of its own, one per (function, line).
package pprof
