// Package cputime reads the calling thread's CPU time, which workloads that
// know their own truth measure themselves by (a goroutine locked to its
// thread with runtime.LockOSThread). That is on Linux; elsewhere Thread
// falls back to wall time.
package cputime
