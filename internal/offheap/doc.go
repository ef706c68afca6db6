// Package offheap gives out memory for data that holds no pointers from
// pages mapped outside the Go heap, and takes it back.
//
// The collector lets the heap grow past what is live by as much again
// before it collects (GOGC=100), so a byte the profiler keeps live on the
// heap costs the program about two of its resident set: its own, and the
// room it makes for the program's garbage. A byte kept here costs one.
// The trace reader keeps a record of every live goroutine and an index of
// them here; at a million parked goroutines they are tens of megabytes.
//
// Memory given back is emptied with madvise(MADV_DONTNEED), which returns
// its pages to the system, by a goroutine of the profiler's after Free
// returns (it costs the system's work on every page, which a profile's
// Stop need not wait for), and kept mapped for the next request of the
// same size: the package never unmaps. A pointer kept by mistake past Free
// reads zeros or the next owner's data, never a fault that would take the
// program down. In return a caller asks for few distinct sizes, so that
// what stays mapped is bounded by its peak: the trace reader asks for
// chunks of one size and an index a power of two long, the sampler for
// chunks of its records. A list grown to
// whatever length a program's goroutines come to would leave a region of
// each length mapped. Where mapping is not possible (not Linux, the system
// refuses, or T holds pointers, which the collector must see), Make
// allocates on the heap and Free leaves that memory to the collector.
package offheap
