package handoff

import (
	"bytes"
	"encoding/binary"
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// TestPagesGivenBack: a generation's buffer is pages of its own, off the
// Go heap: resident while it is written and read (the kernel's present
// bit of each page, /proc/self/pagemap, is the measure), kept for the
// next generation once handed back, and unmapped when both sides have
// ended, the one the reader held included. Once unmapped, an address
// range may be mapped again at once by anything in the process, so what
// is checked after is that the bytes the buffers held are no longer
// there, read through /proc/self/mem (which fails on an unmapped address
// instead of faulting).
func TestPagesGivenBack(t *testing.T) {
	p := New(0)
	p.Write(hdr)
	var batches [][]byte
	for range 8 {
		batches = append(batches, batch(1, 60<<10))
	}
	batches = append(batches, []byte{52})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, b := range batches {
		if _, err := p.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	g, err := p.NextGeneration(nil)
	if err != nil {
		t.Fatal(err)
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew >= int64(len(g))/2 {
		t.Errorf("the Go heap grew by %d bytes with a generation of %d", grew, len(g))
	}
	if kb := residentKB(t, g); kb*1024 < len(g) {
		t.Fatalf("a generation of %d bytes being read: %d KiB resident", len(g), kb)
	}
	writeGen(t, p, 2, 8, 60<<10)
	first := g
	if g, err = p.NextGeneration(g); err != nil {
		t.Fatal(err)
	}
	writeGen(t, p, 3, 8, 60<<10) // into the buffer handed back
	p.mu.Lock()
	reused := &p.queue[0][:1][0] == &first[:1][0]
	p.mu.Unlock()
	if !reused {
		t.Error("generation 3 is not in the buffer generation 1 handed back")
	}
	held := [][]byte{bytes.Clone(first), bytes.Clone(g)}
	p.CloseRead(nil)
	if _, err := p.NextGeneration(g); err == nil {
		t.Fatal("a generation after CloseRead")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(*p.pages); n != 0 {
		t.Errorf("%d buffers still mapped after both ends", n)
	}
	for i, b := range [][]byte{first, g} {
		if stillHeld(t, b, held[i]) {
			t.Errorf("a buffer let go: its %d bytes are still mapped", len(b))
		}
	}
}

// stillHeld reports whether the memory at b's address still holds was,
// read through /proc/self/mem; an address no longer mapped reads as an
// error, one mapped again holds other bytes.
func stillHeld(t *testing.T, b, was []byte) bool {
	t.Helper()
	f, err := os.Open("/proc/self/mem")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	now := make([]byte, len(was))
	if _, err := f.ReadAt(now, int64(uintptr(unsafe.Pointer(&b[:1][0])))); err != nil {
		return false
	}
	return bytes.Equal(now, was)
}

// residentKB returns the resident KiB of the pages b's capacity spans,
// by the present bit of each page in /proc/self/pagemap (adjacent
// mappings are one in smaps).
func residentKB(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := os.Getpagesize()
	first := uintptr(unsafe.Pointer(&b[:1][0])) / uintptr(page)
	entries := make([]byte, 8*((cap(b)+page-1)/page))
	if _, err := f.ReadAt(entries, int64(first)*8); err != nil {
		t.Fatal(err)
	}
	resident := 0
	for i := 0; i < len(entries); i += 8 {
		if binary.LittleEndian.Uint64(entries[i:])>>63 == 1 {
			resident += page
		}
	}
	return resident / 1024
}

// TestDoneLetsGoHeld: a reader that ends holding a generation, taken by
// NextGeneration or being read by Read, gives its pages back at Done,
// with every other buffer of the pipe.
func TestDoneLetsGoHeld(t *testing.T) {
	for _, read := range []bool{false, true} {
		p := New(0)
		p.Write(hdr)
		writeGen(t, p, 1, 8, 60<<10)
		writeGen(t, p, 2, 8, 60<<10)
		p.Write(batch(3, 60<<10)) // a generation being written
		var g []byte
		if read {
			buf := make([]byte, 4096)
			for range 2 { // the header, then the first bytes of generation 1
				if _, err := p.Read(buf); err != nil {
					t.Fatal(err)
				}
			}
			g = p.rpiece
		} else {
			var err error
			if g, err = p.NextGeneration(nil); err != nil {
				t.Fatal(err)
			}
		}
		held := bytes.Clone(g)
		p.Done(nil)
		if n := len(*p.pages); n != 0 {
			t.Errorf("read %v: %d buffers still mapped after Done", read, n)
		}
		if stillHeld(t, g, held) {
			t.Errorf("read %v: the generation the reader held is still mapped after Done", read)
		}
		if _, err := p.NextGeneration(nil); err == nil {
			t.Errorf("read %v: a generation after Done", read)
		}
		if _, err := p.Write(batch(3, 10)); err == nil {
			t.Errorf("read %v: a write after Done kept", read)
		}
	}
}
