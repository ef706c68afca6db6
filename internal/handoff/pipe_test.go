package handoff

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

var hdr = []byte("go 1.26 trace\x00\x00\x00")

// batch returns a batch of generation gen with size bytes of data.
func batch(gen uint64, size int) []byte {
	b := []byte{1}
	b = binary.AppendUvarint(b, gen)
	b = binary.AppendUvarint(b, 7)    // thread
	b = binary.AppendUvarint(b, 1000) // timestamp
	b = binary.AppendUvarint(b, uint64(size))
	return append(b, make([]byte, size)...)
}

// writeGen writes generation gen: n batches of size bytes, then its end.
func writeGen(t testing.TB, p *Pipe, gen uint64, n, size int) []byte {
	var all []byte
	for range n {
		b := batch(gen, size)
		if _, err := p.Write(b); err != nil {
			t.Fatalf("generation %d: %v", gen, err)
		}
		all = append(all, b...)
	}
	if _, err := p.Write([]byte{52}); err != nil {
		t.Fatalf("generation %d's end: %v", gen, err)
	}
	return append(all, 52)
}

// TestRoundTrip: a recorded trace written as the runtime writes it comes
// out whole, byte for byte, through NextGeneration and through Read.
func TestRoundTrip(t *testing.T) {
	data := testutil.Trace(t, 100*time.Millisecond)
	for _, read := range []string{"generations", "stream"} {
		p := New(0)
		errc := make(chan error, 1)
		go func() {
			err := Replay(p, data)
			p.Close()
			errc <- err
		}()
		var got []byte
		if read == "stream" {
			var err error
			if got, err = io.ReadAll(p); err != nil {
				t.Fatal(err)
			}
		} else {
			h, err := p.Header()
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, h...)
			var g []byte
			gens := 0
			for {
				if g, err = p.NextGeneration(g); err == io.EOF {
					break
				} else if err != nil {
					t.Fatal(err)
				}
				if g[len(g)-1] != 52 {
					t.Fatalf("generation %d does not end with its end", gens)
				}
				got = append(got, g...)
				gens++
			}
			if gens == 0 {
				t.Fatal("no generation")
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf("%s: %d bytes out of %d in, not the same", read, len(got), len(data))
		}
	}
}

// TestWriterNeverWaits: with no reader, the writer goes on; past the
// bound the rest is dropped, and the reader gets the complete generations
// held, then ErrFull.
func TestWriterNeverWaits(t *testing.T) {
	p := New(1 << 20)
	p.Write(hdr)
	var want [][]byte
	full := false
	done := make(chan struct{})
	go func() {
		defer close(done)
		for gen := uint64(1); gen <= 40; gen++ {
			var g []byte
			for range 4 {
				b := batch(gen, 60<<10)
				if _, err := p.Write(b); err != nil {
					if !errors.Is(err, ErrFull) {
						t.Errorf("write: %v, want ErrFull", err)
					}
					full = true
				}
				g = append(g, b...)
			}
			if _, err := p.Write([]byte{52}); err == nil {
				want = append(want, append(g, 52))
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the writer waited for a reader")
	}
	if !full || p.Dropped() == 0 {
		t.Fatalf("40 generations of 240 KiB in a pipe of 1 MiB: full %v, %d bytes dropped", full, p.Dropped())
	}
	var g []byte
	var err error
	for i := 0; ; i++ {
		if g, err = p.NextGeneration(g); err != nil {
			if i != len(want) {
				t.Fatalf("%d generations, then %v; want %d", i, err, len(want))
			}
			break
		}
		if i >= len(want) || !bytes.Equal(g, want[i]) {
			t.Fatalf("generation %d is not the one written", i)
		}
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("the reader's end: %v, want ErrFull", err)
	}
	t.Log(err)
}

// TestOneGenerationUnbounded: a single generation larger than the bound
// is kept whole while nothing else waits.
func TestOneGenerationUnbounded(t *testing.T) {
	p := New(64 << 10)
	p.Write(hdr)
	want := writeGen(t, p, 1, 10, 60<<10)
	g, err := p.NextGeneration(nil)
	if err != nil || !bytes.Equal(g, want) {
		t.Fatalf("%v; %d bytes, want %d", err, len(g), len(want))
	}
}

// TestWait: a writer that waits holds at most n generations in the pipe.
func TestWait(t *testing.T) {
	p := New(0)
	p.Write(hdr)
	wrote := make(chan uint64, 10)
	go func() {
		for gen := uint64(1); gen <= 3; gen++ {
			if err := p.Wait(1); err != nil {
				t.Error(err)
				return
			}
			writeGen(t, p, gen, 1, 10)
			wrote <- gen
		}
		p.Close()
	}()
	<-wrote
	select {
	case gen := <-wrote:
		t.Fatalf("generation %d written while the first waited", gen)
	case <-time.After(50 * time.Millisecond):
	}
	var g []byte
	var err error
	n := 0
	for ; ; n++ {
		if g, err = p.NextGeneration(g); err != nil {
			break
		}
	}
	if err != io.EOF || n != 3 {
		t.Fatalf("%d generations, then %v; want 3 then EOF", n, err)
	}
}

// TestCloseRead: once the reader has gone, writes fail and keep nothing,
// and a writer or reader waiting returns.
func TestCloseRead(t *testing.T) {
	p := New(0)
	hdrErr := make(chan error, 1)
	go func() { _, err := p.Header(); hdrErr <- err }()
	waitErr := make(chan error, 1)
	go func() {
		p.Write(hdr)
		writeGen(t, p, 1, 1, 10)
		waitErr <- p.Wait(1)
	}()
	if err := <-hdrErr; err != nil {
		t.Fatal(err)
	}
	gone := errors.New("gone")
	time.Sleep(10 * time.Millisecond)
	p.CloseRead(gone)
	if err := <-waitErr; err != gone {
		t.Fatalf("Wait: %v, want the reader's end", err)
	}
	if _, err := p.Write(batch(2, 10)); err != gone {
		t.Fatalf("Write after CloseRead: %v", err)
	}
	if _, err := p.NextGeneration(nil); err != gone {
		t.Fatalf("NextGeneration after CloseRead: %v", err)
	}
}

// TestEnds: Close hands a generation cut short over as it is, then EOF;
// CloseWithError drops it and gives the error after the complete ones; a
// trace that ends before its header says so.
func TestEnds(t *testing.T) {
	p := New(0)
	p.Write(hdr)
	writeGen(t, p, 1, 1, 10)
	cut := batch(2, 10)
	p.Write(cut)
	p.Close()
	if _, err := p.NextGeneration(nil); err != nil {
		t.Fatal(err)
	}
	if g, err := p.NextGeneration(nil); err != nil || !bytes.Equal(g, cut) {
		t.Fatalf("the cut generation: %q, %v", g, err)
	}
	if _, err := p.NextGeneration(nil); err != io.EOF {
		t.Fatalf("after the last: %v, want EOF", err)
	}
	if _, err := p.Write(cut); err != io.ErrClosedPipe {
		t.Fatalf("Write after Close: %v", err)
	}

	p = New(0)
	p.Write(hdr)
	writeGen(t, p, 1, 1, 10)
	p.Write(cut)
	bad := errors.New("bad")
	p.CloseWithError(bad)
	if _, err := p.NextGeneration(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.NextGeneration(nil); err != bad {
		t.Fatalf("after the complete generation: %v, want the writer's error", err)
	}

	p = New(0)
	p.Write(hdr[:5])
	p.Close()
	if _, err := p.Header(); err != io.ErrUnexpectedEOF {
		t.Fatalf("a header cut short: %v", err)
	}
}

// TestSteadyNoAlloc: once its buffers have grown to the generations'
// size, the pipe allocates nothing per write or generation.
func TestSteadyNoAlloc(t *testing.T) {
	p := New(64 << 20)
	p.Write(hdr)
	b := batch(1, 60<<10)
	var g []byte
	gen := func() {
		for range 8 {
			p.Write(b)
		}
		p.Write([]byte{52})
		var err error
		if g, err = p.NextGeneration(g); err != nil {
			t.Fatal(err)
		}
	}
	for range 4 {
		gen()
	}
	if n := testing.AllocsPerRun(100, gen); n != 0 {
		t.Fatalf("%.1f allocations a generation", n)
	}
}

// TestConcurrent runs a writer, a reader and a waiter together, for the
// race detector.
func TestConcurrent(t *testing.T) {
	p := New(1 << 20)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		p.Write(hdr)
		for gen := uint64(1); gen <= 50; gen++ {
			if gen%2 == 0 {
				p.Wait(2)
			}
			writeGen(t, p, gen, 3, 1000)
		}
		p.Close()
	}()
	go func() {
		defer wg.Done()
		if _, err := p.Header(); err != nil {
			t.Error(err)
		}
		var g []byte
		var err error
		n := 0
		for ; ; n++ {
			if g, err = p.NextGeneration(g); err != nil {
				break
			}
		}
		if err != io.EOF || n != 50 {
			t.Errorf("%d generations, then %v", n, err)
		}
	}()
	wg.Wait()
}

// TestBetween: the function Between gives runs once on the reader's
// goroutine, while it waits in NextGeneration or before its next
// generation if it was parsing, and the generations come as before.
func TestBetween(t *testing.T) {
	p := New(0)
	p.Write(hdr)
	got := make(chan []byte)
	ran := make(chan string, 2)
	go func() {
		var g []byte
		var err error
		for {
			if g, err = p.NextGeneration(g); err != nil {
				close(got)
				return
			}
			got <- bytes.Clone(g) // g is read only until the next call
		}
	}()
	reader := func(name string) func() {
		return func() {
			select {
			case g, ok := <-got:
				t.Errorf("%s ran while the reader took a generation (%d bytes, %v)", name, len(g), ok)
			default:
			}
			ran <- name
		}
	}
	p.Between(reader("waiting")) // the reader waits in NextGeneration
	if name := <-ran; name != "waiting" {
		t.Fatalf("ran %q", name)
	}
	want := writeGen(t, p, 1, 2, 10)
	if g := <-got; !bytes.Equal(g, want) {
		t.Fatalf("generation 1: %d bytes, want %d", len(g), len(want))
	}
	// The reader has not called NextGeneration again (it is sending on
	// got): the next generation waits for the function.
	want = writeGen(t, p, 2, 1, 10)
	p.Between(reader("parsing"))
	g := <-got
	if name := <-ran; name != "parsing" || !bytes.Equal(g, want) {
		t.Fatalf("ran %q; generation 2: %d bytes", name, len(g))
	}
	p.Close()
	if _, ok := <-got; ok {
		t.Fatal("a generation after the end")
	}
	select {
	case name := <-ran:
		t.Fatalf("%q ran twice", name)
	default:
	}
}

// TestBetweenPanics: a function given to Between that panics panics the
// reader's NextGeneration call, as a panic of the reader's own code would,
// and leaves the pipe usable.
func TestBetweenPanics(t *testing.T) {
	p := New(0)
	p.Write(hdr)
	p.Between(func() { panic("boom") })
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the function's panic", r)
			}
		}()
		p.NextGeneration(nil)
	}()
	want := writeGen(t, p, 1, 1, 10)
	if g, err := p.NextGeneration(nil); err != nil || !bytes.Equal(g, want) {
		t.Fatalf("after the panic: %d bytes, %v", len(g), err)
	}
}

// TestSpareLetGo: buffers left from a lag (a new trace's first
// generations queued before the reader takes them, one grown past what
// the generations need) are let go once the reader keeps up, down to the
// one written and the one read, and what is kept is sized to the
// generations.
func TestSpareLetGo(t *testing.T) {
	p := New(0)
	p.Write(hdr)
	const n, size = 8, 60 << 10
	for gen := range uint64(3) {
		writeGen(t, p, gen+1, n, size)
	}
	var g []byte
	for range 3 {
		var err error
		if g, err = p.NextGeneration(g); err != nil {
			t.Fatal(err)
		}
	}
	for gen := range uint64(spareGens + 2) {
		writeGen(t, p, gen+4, n, size)
		var err error
		if g, err = p.NextGeneration(g); err != nil {
			t.Fatal(err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	held := cap(g) + cap(p.cur)
	for _, b := range p.free {
		held += cap(b)
	}
	genLen := len(g)
	page := os.Getpagesize() // a buffer's own pages are whole pages
	if want := 2 * ((bufSize(genLen) + page - 1) / page * page); held > want || len(p.free) > 1 {
		t.Errorf("holds %d bytes in %d free buffers and the one read, want at most %d: the one read and one more of %d", held, len(p.free), want, bufSize(genLen))
	}
}
