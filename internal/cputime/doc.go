// Package cputime reads the calling thread's CPU time, which workloads that
// know their own truth measure themselves by (a goroutine locked to its
// thread with runtime.LockOSThread). That is on Linux; elsewhere Thread
// falls back to wall time. Process reads the whole process's CPU time
// (rusage), which benchmarks compare with a floor's.
package cputime
