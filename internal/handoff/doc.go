// Package handoff carries the runtime's execution trace from the goroutine
// that writes it (the runtime's trace writer, through runtime/trace.Start,
// or a flight recorder's WriteTo) to the goroutine that parses it.
//
// A Pipe copies each write once, into the buffer of the generation being
// written, and never makes the writer wait for the parser: the parser
// takes a generation once its end-of-generation write has come (it cannot
// read a generation's events before), and parses it in place
// (NextGeneration; gotrace.Reader does). The parser is woken once a
// generation, not once a write. A writer of its own, such as a flight
// recorder's feed, may wait for room (Wait).
//
// Memory is bounded: past MaxBytes of trace written and not yet taken by
// the reader, with a complete generation waiting, the rest of the trace
// is dropped (counted by Dropped), and the reader gets the complete
// generations, then an error wrapping ErrFull. The buffers of taken
// generations are handed back and reused, so that a steady trace allocates
// nothing. On Linux a buffer is pages mapped for it, off the Go heap (the
// heap keeps room for as much again as it holds live, and a generation
// holds a report of every goroutine), unmapped when the pipe lets it go;
// elsewhere, or if the system refuses a mapping, buffers are the heap's.
// The pages are not in the heap's figures (runtime.MemStats, heap
// profiles), only in the process's resident set.
package handoff
