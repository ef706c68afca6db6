package chunked

// Array is an array of T that grows by chunks of Chunk elements. The zero
// Array is empty and ready.
type Array[T any] struct {
	chunks []*[Chunk]T
	n      uint32
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
		a.chunks = append(a.chunks, new([Chunk]T))
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
