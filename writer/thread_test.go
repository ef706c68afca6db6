package writer_test

import (
	"bytes"
	"errors"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestThreadHandles writes through handles, Repeat and Forget and checks
// the file against the same stream written through WriteStack.
func TestThreadHandles(t *testing.T) {
	var viaHandles, viaStack seekbuf.Buffer
	wh, _ := writer.New(&viaHandles, writer.Options{StartTime: 10})
	ws, _ := writer.New(&viaStack, writer.Options{StartTime: 10})
	a := wh.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	b := wh.Frame(tachyon.Frame{File: "b.go", Func: "b", Line: 2})
	ws.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	ws.Frame(tachyon.Frame{File: "b.go", Func: "b", Line: 2})

	unused := wh.Thread(99, 0) // a handle that never writes does not count
	_ = unused
	h1, h2 := wh.Thread(1, 0), wh.Thread(1, 7)
	if err := h1.Repeat(20, 0); !errors.Is(err, writer.ErrNoStack) {
		t.Fatalf("Repeat before a stack: %v", err)
	}
	steps := []struct {
		h      *writer.Thread
		id     uint64
		interp uint32
		ts     uint64
		stack  []uint32
		repeat bool
	}{
		{h1, 1, 0, 20, []uint32{a, b}, false},
		{h2, 1, 7, 21, []uint32{b}, false},
		{h1, 1, 0, 30, nil, true},
		{h1, 1, 0, 40, []uint32{a, b}, false}, // equal stack: joins the run
		{h2, 1, 7, 41, nil, true},
		{h1, 1, 0, 50, []uint32{b}, false},
	}
	for _, s := range steps {
		var err error
		if s.repeat {
			err = s.h.Repeat(s.ts, 3)
		} else {
			err = s.h.Write(s.ts, 3, s.stack)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	h2.Forget()
	if err := h2.Repeat(60, 0); !errors.Is(err, writer.ErrForgotten) {
		t.Fatalf("Repeat after Forget: %v", err)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	prev := map[[2]uint64][]uint32{}
	for _, s := range steps {
		k := [2]uint64{s.id, uint64(s.interp)}
		if s.repeat {
			s.stack = prev[k]
		}
		prev[k] = s.stack
		ws.WriteStack(s.id, s.interp, s.ts, 3, s.stack)
	}
	ws.Close()
	got, want := decodeByThread(t, viaHandles.Bytes()), decodeByThread(t, viaStack.Bytes())
	if !sameByThread(got, want) {
		t.Fatalf("handles:\n%v\nWriteStack:\n%v", got, want)
	}
	f, _ := reader.NewFileBytes(viaHandles.Bytes())
	if f.Header.ThreadCount != 2 || f.Header.SampleCount != 6 {
		t.Fatalf("header: %d threads %d samples", f.Header.ThreadCount, f.Header.SampleCount)
	}
}

// TestThreadMethods writes one stream through a handle's own methods and
// through the Writer's methods on the handle: the files are identical, and
// the handle's methods write nothing after Forget.
func TestThreadMethods(t *testing.T) {
	var viaThread, viaWriter seekbuf.Buffer
	wt, _ := writer.New(&viaThread, writer.Options{StartTime: 10, Compression: tachyon.CompressionNone})
	ww, _ := writer.New(&viaWriter, writer.Options{StartTime: 10, Compression: tachyon.CompressionNone})
	for _, w := range []*writer.Writer{wt, ww} {
		w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
		w.Frame(tachyon.Frame{File: "b.go", Func: "b", Line: 2})
	}
	a, b := wt.Thread(1, 0), wt.Thread(2, 0)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Write(20, 1, []uint32{0, 1}))
	must(b.Write(21, 0, []uint32{1}))
	must(a.Repeat(30, 1))
	must(a.RepeatEvery(40, 10, 5, 1))
	a.Flush()
	must(b.RepeatEvery(41, 10, 3, 0))
	b.Forget()
	if err := b.Write(90, 0, []uint32{1}); !errors.Is(err, writer.ErrForgotten) {
		t.Fatalf("Write after Forget: %v", err)
	}
	must(a.Write(90, 1, []uint32{1}))

	a, b = ww.Thread(1, 0), ww.Thread(2, 0)
	must(a.Write(20, 1, []uint32{0, 1}))
	must(b.Write(21, 0, []uint32{1}))
	must(a.Repeat(30, 1))
	must(a.RepeatEvery(40, 10, 5, 1))
	a.Flush()
	must(b.RepeatEvery(41, 10, 3, 0))
	b.Forget()
	must(a.Write(90, 1, []uint32{1}))
	must(wt.Close())
	must(ww.Close())
	if !bytes.Equal(viaThread.Bytes(), viaWriter.Bytes()) {
		t.Fatal("a handle's methods and the Writer's methods wrote different files")
	}
}

// TestForgetBoundsState: a stream of short-lived goroutines, each forgotten
// when it ends, keeps only the live ones in the writer.
func TestForgetBoundsState(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{Compression: tachyon.CompressionZstd})
	f := w.Frame(tachyon.Frame{File: "g.go", Func: "g", Line: 1})
	for g := range uint64(100000) {
		h := w.Thread(g+1, 0)
		h.Write(g, 0, []uint32{f})
		h.Repeat(g+1, 0)
		h.Forget()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := reader.NewFileBytes(m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := file.Verify(); err != nil {
		t.Fatal(err)
	}
	if file.Header.ThreadCount != 100000 || file.Header.SampleCount != 200000 {
		t.Fatalf("header: %d threads %d samples", file.Header.ThreadCount, file.Header.SampleCount)
	}
}

// BenchmarkWallTickHandles is BenchmarkWallTick for a sampler that keeps a
// handle per goroutine and writes unchanged goroutines with Repeat.
func BenchmarkWallTickHandles(b *testing.B) {
	const goroutines = 10000
	var d seekbuf.Discard
	w, _ := writer.New(&d, writer.Options{Compression: tachyon.CompressionZstd})
	stacks := make([][]uint32, goroutines)
	hs := make([]*writer.Thread, goroutines)
	for g := range stacks {
		for j := range 20 {
			stacks[g] = append(stacks[g], w.Frame(tachyon.Frame{File: "f.go", Func: "fn", Line: int32((g%50)*20 + j)}))
		}
		hs[g] = w.Thread(uint64(g)*7+1000, 0)
		hs[g].Write(0, 0, stacks[g])
	}
	ts := uint64(0)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g := i % goroutines
		if g == 0 {
			ts += 10000
		}
		var err error
		if i%97 == 0 {
			stacks[g][0] ^= 1
			err = hs[g].Write(ts, tachyon.StatusOnCPU, stacks[g])
		} else {
			err = hs[g].Repeat(ts, tachyon.StatusOnCPU)
		}
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
	w.Close()
}

// TestRepeatEvery checks RepeatEvery against the same samples written one
// Repeat at a time, with and without a gap before a call's first sample:
// byte-identical files under the default pending cap, and the same
// decoded samples under a tiny one that flushes mid-run.
func TestRepeatEvery(t *testing.T) {
	for _, pendingCap := range []int{0, 4096} {
		for _, step := range []uint64{0, 1, 200, 10000, 1 << 40} {
			var bulk, single seekbuf.Buffer
			opts := writer.Options{StartTime: 5, MaxPendingBytes: pendingCap}
			wb, _ := writer.New(&bulk, opts)
			w1, _ := writer.New(&single, opts)
			var hb, h1 [3]*writer.Thread
			for i := range hb {
				fb := wb.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: int32(i)})
				f1 := w1.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: int32(i)})
				hb[i], h1[i] = wb.Thread(uint64(i+1), 0), w1.Thread(uint64(i+1), 0)
				if err := hb[i].RepeatEvery(6, step, 3, 0); !errors.Is(err, writer.ErrNoStack) {
					t.Fatalf("RepeatEvery before a stack: %v", err)
				}
				hb[i].Write(7, 1, []uint32{fb})
				h1[i].Write(7, 1, []uint32{f1})
			}
			ts := uint64(9)
			for round, n := range []int{0, 1, 2, 5461, 5462, 20000, 3} {
				for i := range hb {
					st := tachyon.Status(round + i)
					if err := hb[i].RepeatEvery(ts, step, n, st); err != nil {
						t.Fatal(err)
					}
					for j := range n {
						h1[i].Repeat(ts+uint64(j)*step, st)
					}
				}
				// Odd rounds' next begins a step after their last sample,
				// where a parked goroutine's next ticks do.
				ts += uint64(n)*step + uint64(1-round%2)
			}
			if err := wb.Close(); err != nil {
				t.Fatal(err)
			}
			w1.Close()
			if got, want := wb.Stats().Samples, w1.Stats().Samples; got != want {
				t.Fatalf("cap %d step %d: %d samples, want %d", pendingCap, step, got, want)
			}
			if pendingCap == 0 && string(bulk.Bytes()) != string(single.Bytes()) {
				t.Errorf("step %d: files differ", step)
			}
			if got, want := decodeByThread(t, bulk.Bytes()), decodeByThread(t, single.Bytes()); !sameByThread(got, want) {
				t.Errorf("cap %d step %d: decoded samples differ", pendingCap, step)
			}
		}
	}
}

// TestParkedRunsHoldNoBuffer checks that a run repeating one pair costs no
// pending bytes: 1,000 threads each written twice with RepeatEvery, under a
// 1 KiB cap on pending buffers, still make one REPEAT record per thread,
// where buffered pairs would be cut at the cap after every call.
func TestParkedRunsHoldNoBuffer(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{StartTime: 0, MaxPendingBytes: 1 << 10})
	f := w.Frame(tachyon.Frame{File: "p.go", Func: "parked", Line: 1})
	const threads, n, step = 1000, 1000, 10000
	hs := make([]*writer.Thread, threads)
	for i := range hs {
		hs[i] = w.Thread(uint64(i+1), 0)
		hs[i].Write(step, 0, []uint32{f})
	}
	for round := range 2 {
		for _, h := range hs {
			if err := h.RepeatEvery(step*uint64(2+round*n), step, n, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	if st.Samples != threads*(1+2*n) || st.Records[tachyon.Repeat] != threads {
		t.Fatalf("%d samples in %d REPEAT records, want %d in %d", st.Samples, st.Records[tachyon.Repeat], threads*(1+2*n), threads)
	}
}

// TestSameIDForget: threads that share a thread id across interpreters are
// found after one of them is forgotten, whichever was made first.
func TestSameIDForget(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{})
	f := w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	a, b, c := w.Thread(5, 0), w.Thread(5, 1), w.Thread(5, 2)
	for _, h := range []*writer.Thread{a, b, c} {
		h.Write(10, 0, []uint32{f})
	}
	a.Forget()
	if w.Thread(5, 1) != b || w.Thread(5, 2) != c {
		t.Fatal("a thread sharing a forgotten thread's id was not found")
	}
	b.Forget()
	if w.Thread(5, 2) != c {
		t.Fatal("the last thread of the id was not found")
	}
	if d := w.Thread(5, 3); d == a || d == b || d == c {
		t.Fatal("a new interpreter's thread got another's handle")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestLongDeltas: pairs too long for a run's tail (deltas of 2^28
// microseconds and more) are written as they came, alone and among short
// ones, through Repeat and RepeatEvery, the same as through WriteStack; a
// delta of 2^28-1 is the longest a tail takes.
func TestLongDeltas(t *testing.T) {
	var viaHandle, viaStack seekbuf.Buffer
	wh, _ := writer.New(&viaHandle, writer.Options{})
	ws, _ := writer.New(&viaStack, writer.Options{})
	fh := wh.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	ws.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
	h := wh.Thread(1, 0)
	stack := []uint32{fh}
	var ts []uint64
	write := func(at uint64) {
		ts = append(ts, at)
		if len(ts) == 1 {
			h.Write(at, 0, stack)
		} else if err := h.Repeat(at, 0); err != nil {
			t.Fatal(err)
		}
	}
	write(1)
	write(2)
	write(1 + 1<<28)
	write(1 + 2<<28)
	write(1 + 3<<28)
	write(1 + 3<<28 + 10)
	write(1 << 43)
	write(1<<43 + 10)
	write(1<<43 + 20)
	write(1 << 60)
	write(1 << 61)
	if err := h.RepeatEvery(1<<62, 1<<50, 3, 0); err != nil {
		t.Fatal(err)
	}
	ts = append(ts, 1<<62, 1<<62+1<<50, 1<<62+2<<50)
	h.Flush()
	write(1<<62 + 3<<50)
	if err := h.RepeatEvery(1<<62+4<<50, 1<<28-1, 3, 0); err != nil {
		t.Fatal(err)
	}
	ts = append(ts, 1<<62+4<<50, 1<<62+4<<50+1<<28-1, 1<<62+4<<50+2<<28-2)
	if err := h.RepeatEvery(1<<62+5<<50, 1<<28, 3, 0); err != nil {
		t.Fatal(err)
	}
	ts = append(ts, 1<<62+5<<50, 1<<62+5<<50+1<<28, 1<<62+5<<50+2<<28)
	for _, at := range ts {
		ws.WriteStack(1, 0, at, 0, stack)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	got, want := decodeByThread(t, viaHandle.Bytes()), decodeByThread(t, viaStack.Bytes())
	if !sameByThread(got, want) {
		t.Fatalf("handle:\n%v\nWriteStack:\n%v", got, want)
	}
	f, err := reader.NewFileBytes(viaHandle.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var read []uint64
	for _, s := range proftest.Samples(t, f) {
		read = append(read, s.TimestampUS)
	}
	if !slices.Equal(read, ts) {
		t.Fatalf("timestamps read back %v, want %v", read, ts)
	}
}

// TestNewThread: handles that NewThread makes write the same file as
// Thread's, and the Writer does not find them by id.
func TestNewThread(t *testing.T) {
	write := func(loose bool) []byte {
		var m seekbuf.Buffer
		w, _ := writer.New(&m, writer.Options{StartTime: 10, Compression: tachyon.CompressionZstd})
		f := w.Frame(tachyon.Frame{File: "a.go", Func: "a", Line: 1})
		g := w.Frame(tachyon.Frame{File: "b.go", Func: "b", Line: 2})
		handle := w.Thread
		if loose {
			handle = w.NewThread
		}
		a, b := handle(1, 0), handle(2, 0)
		for _, err := range []error{
			a.Write(20, 3, []uint32{f, g}),
			b.Write(21, 3, []uint32{g}),
			a.RepeatEvery(30, 10, 5, 3),
			b.RepeatEvery(31, 10, 5, 3),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		a.Flush()
		b.Forget()
		if err := a.Write(90, 3, []uint32{g}); err != nil {
			t.Fatal(err)
		}
		if loose && (w.Thread(1, 0) == a || w.Thread(2, 0) == b) {
			t.Fatal("Thread found a handle that NewThread made")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return m.Bytes()
	}
	if !bytes.Equal(write(true), write(false)) {
		t.Fatal("NewThread's handles wrote another file than Thread's")
	}
}
