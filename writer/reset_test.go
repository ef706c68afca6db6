package writer_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// resetFile writes a small profile whose content depends on k: threads,
// frames and a parked run.
func resetFile(tb testing.TB, w *writer.Writer, k int) {
	tb.Helper()
	start := uint64(1_000_000 * (k + 1))
	for id := uint64(1); id <= 50; id++ {
		t := w.Thread(id+uint64(k), 0)
		stack := []uint32{w.Frame(tachyon.Frame{File: "a.go", Func: fmt.Sprintf("f%d", (int(id)+k)%7), Line: int32(id)}), w.Frame(tachyon.Frame{File: "m.go", Func: "main", Line: 1})}
		if err := t.Write(start, tachyon.Status(0), stack); err != nil {
			tb.Fatal(err)
		}
		if err := t.RepeatEvery(start+10_000, 10_000, 100+k, tachyon.Status(0)); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestResetSameBytes: a Writer Reset after one file writes the next one
// byte for byte as a new Writer does, with and without compression, and
// with its records taken back ahead (Recycle) or by Reset. Recycle does
// nothing to a Writer still writing.
func TestResetSameBytes(t *testing.T) {
	for _, c := range []struct {
		comp    tachyon.Compression
		recycle bool
	}{{tachyon.CompressionZstd, false}, {tachyon.CompressionNone, false}, {tachyon.CompressionZstd, true}} {
		comp := c.comp
		opts := writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: comp}
		var first, again, fresh seekbuf.Buffer
		w, err := writer.New(&first, opts)
		if err != nil {
			t.Fatal(err)
		}
		resetFile(t, w, 0)
		if err := w.Reset(&again, opts); err != writer.ErrNotClosed {
			t.Errorf("Reset of an open writer: %v", err)
		}
		if c.recycle {
			w.Recycle() // still writing: nothing
			resetFile(t, w, 2)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if c.recycle {
			w.Recycle()
			w.Recycle()
		}
		if err := w.Reset(&again, opts); err != nil {
			t.Fatal(err)
		}
		resetFile(t, w, 1)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		n, err := writer.New(&fresh, opts)
		if err != nil {
			t.Fatal(err)
		}
		resetFile(t, n, 1)
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), fresh.Bytes()) {
			t.Errorf("compression %v, recycled %v: the file after Reset (%d bytes) differs from a new writer's (%d bytes)", comp, c.recycle, again.Len(), fresh.Len())
		}
	}
}

// BenchmarkResetFile measures a file written by a Writer reset from the
// previous one, as a caller writing one file after another does; what it
// allocates is the output buffer's growth.
func BenchmarkResetFile(b *testing.B) {
	opts := writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionZstd}
	var buf seekbuf.Buffer
	w, err := writer.New(&buf, opts)
	if err != nil {
		b.Fatal(err)
	}
	resetFile(b, w, 0)
	w.Close()
	b.ReportAllocs()
	for b.Loop() {
		buf = seekbuf.Buffer{}
		if err := w.Reset(&buf, opts); err != nil {
			b.Fatal(err)
		}
		resetFile(b, w, 0)
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCloseGivesStacksBack: threads whose last sample changed their stack
// hold a buffer of their own until a Flush shares it; Close gives every
// such buffer back, so that a closed Writer kept to be Reset (a segment's
// spare) holds none, and neither do the records Reset keeps.
func TestCloseGivesStacksBack(t *testing.T) {
	var out seekbuf.Buffer
	w, err := writer.New(&out, writer.Options{StartTime: 1, Interval: 10})
	if err != nil {
		t.Fatal(err)
	}
	stack := []uint32{w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})}
	for id := range uint64(3000) {
		th := w.Thread(id+1, 0)
		if err := th.Write(1, 0, stack); err != nil {
			t.Fatal(err)
		}
		if id%3 == 0 {
			th.Flush() // shared: no buffer of its own
		}
	}
	if n := writer.OwnedStacks(w); n != 2000 {
		t.Fatalf("%d threads hold a stack of their own before Close, want 2000", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n := writer.OwnedStacks(w); n != 0 {
		t.Errorf("%d threads hold a stack of their own after Close", n)
	}
	if err := w.Reset(&seekbuf.Buffer{}, writer.Options{StartTime: 1, Interval: 10}); err != nil {
		t.Fatal(err)
	}
	if n := writer.OwnedStacks(w); n != 0 {
		t.Errorf("%d kept records hold a stack after Reset", n)
	}
}

// changingFile writes a profile whose threads change stack twice: each
// thread's second and third samples are written against the stack it
// wrote before, so that a thread whose buffer another thread also holds
// writes a different delta.
func changingFile(tb testing.TB, w *writer.Writer, k int) {
	tb.Helper()
	start := uint64(1_000_000 * (k + 1))
	frame := func(fn string, line int) uint32 {
		return w.Frame(tachyon.Frame{File: "c.go", Func: fn, Line: int32(line)})
	}
	stack := func(id uint64, step int) []uint32 {
		return []uint32{frame(fmt.Sprintf("leaf%d", (int(id)+step+k)%11), step), frame(fmt.Sprintf("mid%d", int(id)%5), 2), frame("main", 1)}
	}
	const threads = 300
	ts := make([]*writer.Thread, threads)
	for step := range 3 {
		for i := range ts {
			if step == 0 {
				// Made as it writes: the records kept from the last file
				// are taken while others already hold new buffers.
				ts[i] = w.Thread(uint64(i+1+k%3), 0)
			}
			th := ts[i]
			if err := th.Write(start+uint64(step)*10_000, tachyon.Status(step%2), stack(uint64(i), step)); err != nil {
				tb.Fatal(err)
			}
			if (i+step)%4 == 0 {
				th.Flush() // its stack shared with the threads that have the same
			}
		}
	}
}

// TestResetKeepsStacksApart: the records and stack buffers a Writer takes
// back at Reset are handed out once each, file after file. A kept record
// that still pointed to a buffer of the last file's table would give that
// buffer back a second time once another thread had taken it, and two
// threads would then write their stacks into one buffer.
func TestResetKeepsStacksApart(t *testing.T) {
	opts := writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionNone}
	var out seekbuf.Buffer
	w, err := writer.New(&out, opts)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 12 {
		if k > 0 {
			out = seekbuf.Buffer{}
			if k%2 == 0 {
				w.Recycle()
			}
			if err := w.Reset(&out, opts); err != nil {
				t.Fatal(err)
			}
		}
		changingFile(t, w, k)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var fresh seekbuf.Buffer
		n, err := writer.New(&fresh, opts)
		if err != nil {
			t.Fatal(err)
		}
		changingFile(t, n, k)
		if err := n.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), fresh.Bytes()) {
			t.Fatalf("file %d after Reset (%d bytes) differs from a new writer's (%d bytes)", k, out.Len(), fresh.Len())
		}
	}
}
