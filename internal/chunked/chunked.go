package chunked

import "github.com/gotachyon/profiler/internal/offheap"

// Array is an array of T that grows by chunks of Chunk elements. The zero
// Array is empty and ready.
type Array[T any] struct {
	chunks []*[Chunk]T
	n      uint32
	// Mapped says the chunks are to lie off the Go heap (package offheap),
	// as they can where T holds no pointers; set before the first Grow.
	// The owner then gives them back with Release when done.
	Mapped bool
}

// Chunk is how many elements a chunk holds. A chunk of more than 32 KB is
// a large object, which takes a whole number of the heap's pages of 8 KB:
// elements of 8 bytes times a power of two fill them.
const Chunk = 1024

// At returns element i, which must be below Len.
func (a *Array[T]) At(i uint32) *T { return &a.chunks[i/Chunk][i%Chunk] }

// Len returns how many elements the array has.
func (a *Array[T]) Len() uint32 { return a.n }

// Grow adds an element, zero, and returns its index: a new chunk if the
// last is full and no chunk is kept beyond it (Truncate).
func (a *Array[T]) Grow() uint32 {
	if a.n%Chunk == 0 && int(a.n/Chunk) == len(a.chunks) {
		a.chunks = append(a.chunks, a.newChunk())
	}
	a.n++
	return a.n - 1
}

// Truncate shortens the array to n elements, n at most Len, and zeroes
// the elements cut off; their chunks are kept for Grow.
func (a *Array[T]) Truncate(n uint32) {
	for i := n; i < a.n; {
		c := a.chunks[i/Chunk]
		end := min(a.n-i/Chunk*Chunk, Chunk)
		clear(c[i%Chunk : end])
		i = i/Chunk*Chunk + end
	}
	a.n = n
}

// newChunk returns a zero chunk, off the heap if the array is Mapped.
func (a *Array[T]) newChunk() *[Chunk]T {
	if a.Mapped {
		return (*[Chunk]T)(offheap.Make[T](Chunk))
	}
	return new([Chunk]T)
}

// Release empties the array and gives its chunks back: off the heap, they
// may be another's as soon as it returns, so that no element's address
// may be used after. The array is empty and ready again, Mapped as it was.
func (a *Array[T]) Release() {
	if a.Mapped {
		for _, c := range a.chunks {
			offheap.Free(c[:])
		}
	}
	a.chunks, a.n = nil, 0
}
