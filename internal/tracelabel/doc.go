// Package tracelabel is the contract between the profiler's label API
// (profiler.Do, profiler.SetGoroutineLabels) and the goroutine sampler:
// how a goroutine's pprof labels reach the sampler through the runtime's
// execution trace, which does not carry pprof labels.
//
// While a profile reads the trace (Enabled), setting a goroutine's labels
// writes one trace.Log event on that goroutine, in the category Category,
// whose message (Append) holds the goroutine's whole label set after the
// change: an empty message says it has none. The sampler reads the set
// back with Parse, keeps it as the goroutine's labels until the next such
// event, and gives it to the goroutines it creates, as the runtime does
// with pprof labels.
package tracelabel
