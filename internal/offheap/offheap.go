package offheap

import (
	"reflect"
	"sync"
	"time"
	"unsafe"

	"github.com/gotachyon/profiler/internal/own"
)

// Make returns a slice of n zero Ts, off the Go heap where it can: T must
// hold no pointers for that (else the slice is on the heap). The caller
// gives it back with Free, once nothing uses it; a slice it grows past its
// capacity with append is on the heap.
func Make[T any](n int) []T {
	if n <= 0 {
		return nil
	}
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if size/uintptr(n) != unsafe.Sizeof(zero) || size == 0 || !pointerFree(reflect.TypeFor[T]()) {
		return make([]T, n)
	}
	p := take(size)
	if p == nil {
		return make([]T, n)
	}
	return unsafe.Slice((*T)(p), n)
}

// Free gives back s, a slice from Make (or one of its slices that begins
// where it does). It does nothing for a slice on the heap, nil or empty
// of capacity.
func Free[T any](s []T) {
	if cap(s) == 0 {
		return
	}
	give(unsafe.Pointer(unsafe.SliceData(s)))
}

// Mapped returns the bytes mapped so far, given out or kept for reuse.
func Mapped() int64 {
	regions.Lock()
	defer regions.Unlock()
	return regions.mapped
}

// Settle waits until every region given back has been emptied and kept
// for reuse: for a caller that counts what is mapped (Mapped), or wants
// a region it gave back to be the next one given out.
func Settle() {
	for {
		regions.Lock()
		busy := regions.emptying
		regions.Unlock()
		if !busy {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// InUse returns the bytes given out and not given back.
func InUse() int64 {
	regions.Lock()
	defer regions.Unlock()
	return regions.inUse
}

// regions holds every region the package mapped, by its start, those
// given back by size, for reuse, and those given back and not yet
// emptied.
var regions = struct {
	sync.Mutex
	all           map[unsafe.Pointer]region
	free          map[uintptr][]unsafe.Pointer
	mapped, inUse int64
	pending       []unsafe.Pointer // given back, to be emptied
	emptying      bool             // a goroutine empties pending
}{
	all:  make(map[unsafe.Pointer]region),
	free: make(map[uintptr][]unsafe.Pointer),
}

// region is a mapped region's size and whether it is given out.
type region struct {
	size uintptr
	out  bool
}

// take returns a zero region of at least size bytes, nil if none can be
// mapped.
func take(size uintptr) unsafe.Pointer {
	size = (size + pageSize - 1) / pageSize * pageSize
	regions.Lock()
	defer regions.Unlock()
	var p unsafe.Pointer
	if f := regions.free[size]; len(f) > 0 {
		p = f[len(f)-1]
		regions.free[size] = f[:len(f)-1]
	} else {
		if p = mapRegion(size); p == nil {
			return nil
		}
		regions.mapped += int64(size)
	}
	regions.all[p] = region{size: size, out: true}
	regions.inUse += int64(size)
	return p
}

// give takes back the region that starts at p, to be emptied and then
// kept for reuse; it does nothing if no region given out starts at p, so
// that a region given back twice is kept once. The emptying costs the
// system's work on each page (milliseconds for the records of 100,000
// goroutines, given back as a profile stops), so a goroutine of the
// profiler's does it, not the caller.
func give(p unsafe.Pointer) {
	regions.Lock()
	r, ok := regions.all[p]
	if !ok || !r.out {
		regions.Unlock()
		return
	}
	regions.all[p] = region{size: r.size}
	regions.inUse -= int64(r.size)
	regions.pending = append(regions.pending, p)
	start := !regions.emptying
	regions.emptying = true
	regions.Unlock()
	if start {
		own.Go(emptyPending)
	}
}

// emptyPending empties the regions given back and keeps them for reuse,
// until none is left.
func emptyPending() {
	for {
		regions.Lock()
		ps := regions.pending
		regions.pending = nil
		if len(ps) == 0 {
			regions.emptying = false
			regions.Unlock()
			return
		}
		sizes := make([]uintptr, len(ps))
		for i, p := range ps {
			sizes[i] = regions.all[p].size
		}
		regions.Unlock()
		for i, p := range ps {
			empty(p, sizes[i])
		}
		regions.Lock()
		for i, p := range ps {
			regions.free[sizes[i]] = append(regions.free[sizes[i]], p)
		}
		regions.Unlock()
	}
}

// pointerFree reports whether a value of type t holds no pointer.
func pointerFree(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
		return true
	case reflect.Array:
		return t.Len() == 0 || pointerFree(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !pointerFree(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
