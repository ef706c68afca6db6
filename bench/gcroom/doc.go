// Command gcroom measures what a byte the profiler keeps live costs a
// program's resident set, on the Go heap and off it (internal/offheap),
// in a program shaped like one with a million parked goroutines under the
// runtime's trace: a large live heap, and garbage made at a steady rate
// (the runtime's trace allocates a slice of every goroutine at each
// generation). It prints the resident set's mean and peak over the
// window, read every 100 ms, and the collections in it.
//
//	go run ./bench/gcroom -where none
//	go run ./bench/gcroom -where heap
//	go run ./bench/gcroom -where off
package main
