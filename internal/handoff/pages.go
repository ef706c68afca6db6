package handoff

import "runtime"

// The generation buffers are pages mapped for them, off the Go heap,
// where the system has them (pages_linux.go): a generation is held once,
// not also in the room the collector keeps beside what is live (the heap
// grows to twice its live objects between collections). A buffer kept for
// reuse keeps its pages: giving them back and faulting them in again at
// each generation cost the writer more CPU than the memory was worth
// (BenchmarkHandoff, bench/MEASUREMENTS.md). Elsewhere, or if the system
// refuses a mapping, buffers are slices of the heap.
//
// A buffer is unmapped only when nothing can read it: when the pipe lets
// go of one it holds (never handed to the reader, or handed back), and
// the one the reader holds when it ends, at Done, on the reader's own
// goroutine. A reader that ends without Done leaves that one to a
// cleanup once the pipe is garbage (the reader's reference to it goes
// with the pipe's), which runs on the runtime's goroutine for cleanups:
// Done cancels it, so that in a profile the program's cleanups never
// show the profiler's work.

// pageSet is a pipe's mapped buffers by their first byte, each whole.
type pageSet map[*byte][]byte

// newBuf returns an empty buffer of capacity at least n.
func (p *Pipe) newBuf(n int) []byte {
	p.made++
	if b, ok := mapPages(n); ok {
		if p.pages == nil {
			p.pages = &pageSet{}
			p.unmap = runtime.AddCleanup(p, unmapAll, p.pages)
		}
		(*p.pages)[&b[:1][0]] = b[:cap(b)]
		return b
	}
	return make([]byte, 0, n)
}

// pagesGone cancels the cleanup once the pipe holds no pages.
func (p *Pipe) pagesGone() {
	if p.pages != nil && len(*p.pages) == 0 {
		p.unmap.Stop()
	}
}

// unmapAll unmaps the buffers of a pipe that is garbage.
func unmapAll(s *pageSet) {
	for _, b := range *s {
		unmapPages(b)
	}
	clear(*s)
}

// grow returns b, copied to a buffer with room for n more bytes if it
// has not: twice as large at least, so that generations that keep growing
// are copied few times. b is let go.
func (p *Pipe) grow(b []byte, n int) []byte {
	if len(b)+n <= cap(b) {
		return b
	}
	g := append(p.newBuf(len(b)+max(n, cap(b))), b...)
	p.letGo(b)
	return g
}

// letGo gives b up: its pages to the system if they were mapped for it,
// else to the collector. Nothing may read b after.
func (p *Pipe) letGo(b []byte) {
	if k, ok := p.mapped(b); ok {
		delete(*p.pages, k)
		unmapPages(b)
	}
}

// mapped returns b's key in the pipe's pages, if it is mapped.
func (p *Pipe) mapped(b []byte) (*byte, bool) {
	if cap(b) == 0 || p.pages == nil {
		return nil, false
	}
	k := &b[:1][0]
	_, ok := (*p.pages)[k]
	return k, ok
}
