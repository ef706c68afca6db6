// Package chunked holds an array that grows by chunks of a fixed length,
// which are never moved: an element keeps its address for as long as the
// array lives, and the array costs its elements' size, with no pointer to
// each kept beside it and no spare room of a slice grown by append. The
// trace reader and the sampler keep a record of every live goroutine in
// one, numbered, and give an ended goroutine's record to the next new one;
// the writer keeps its list of threads in one. An array of records without
// pointers can keep its chunks off the Go heap (Mapped, package offheap),
// as the trace reader's does, and gives them back with Release.
package chunked
