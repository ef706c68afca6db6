// Package goid reads goroutine ids from tracebacks: the calling
// goroutine's, and the one in a "goroutine 123 [...]:" header of a
// runtime.Stack dump. Go has no API for a goroutine's id; the profiler
// needs its own goroutines' to leave them out of the samples, and the
// samples are keyed by goroutine id.
package goid
