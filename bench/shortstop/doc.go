// Command shortstop times the Stop of a short profile of parked
// goroutines: it parks -n goroutines on one channel, profiles for -for
// into a file, and prints Stop's time (and the runtime's part,
// Stats.RuntimeStop), the process's CPU during Stop from rusage, the
// collections completed and the bytes allocated during Stop, the file's
// size and its samples. A goroutine's ticks reach the file at least every
// four generations, so a profile of 5 s stops before some goroutines were
// ever written: their first records are written at Stop. With -floor it
// times the runtime's own stop instead, of an execution trace and a CPU
// profile into io.Discard, started and stopped at the same moments.
// BenchmarkScale measures Stop after a settled window instead.
//
//	go run ./bench/shortstop -n 100000 -for 5s
package main
