package writer_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/offheap"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestNumberedThreads writes one random stream of samples, flushes and
// ends (Forget) through handles and through numbers, whose forgotten
// numbers go to new threads: the files are byte for byte the same, under a
// small pending cap so that runs also leave by the cap.
func TestNumberedThreads(t *testing.T) {
	opts := writer.Options{StartTime: 1000, Compression: tachyon.CompressionZstd, MaxPendingBytes: 2048}
	var viaHandles, viaNumbers seekbuf.Buffer
	wh, _ := writer.New(&viaHandles, opts)
	wn, _ := writer.New(&viaNumbers, opts)
	var frames []uint32
	for i := range 40 {
		f := tachyon.Frame{File: "f.go", Func: "fn", Line: int32(i)}
		frames = append(frames, wh.Frame(f))
		wn.Frame(f)
	}
	type live struct {
		h  *writer.Thread
		n  writer.ThreadNo
		ts uint64
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var lives []live
	reused := 0
	nextID := uint64(1)
	for range 20000 {
		if len(lives) < 50 && rng.IntN(4) == 0 {
			interp := uint32(0)
			if rng.IntN(5) == 0 {
				interp = 3
			}
			l := live{h: wh.NewThread(nextID, interp), n: wn.NewThreadNo(nextID, interp), ts: 1000}
			if int(l.n) <= int(nextID)-1-reused {
				reused++
			}
			nextID++
			stack := frames[:1+rng.IntN(len(frames))]
			check(t, l.h.Write(l.ts, tachyon.StatusOnCPU, stack), wn.WriteNo(l.n, l.ts, tachyon.StatusOnCPU, stack))
			lives = append(lives, l)
			continue
		}
		if len(lives) == 0 {
			continue
		}
		i := rng.IntN(len(lives))
		l := &lives[i]
		st := tachyon.Status(rng.IntN(4))
		switch r := rng.IntN(20); {
		case r < 10:
			k := 1 + rng.IntN(300)
			check(t, l.h.RepeatEvery(l.ts+10, 10, k, st), wn.RepeatEveryNo(l.n, l.ts+10, 10, k, st))
			l.ts += uint64(k) * 10
		case r < 15:
			l.ts += 7
			stack := frames[rng.IntN(len(frames)):]
			check(t, l.h.Write(l.ts, st, stack), wn.WriteNo(l.n, l.ts, st, stack))
		case r < 19:
			l.h.Flush()
			wn.FlushNo(l.n)
		default:
			l.h.Forget()
			wn.ForgetNo(l.n)
			lives = append(lives[:i], lives[i+1:]...)
		}
	}
	for _, l := range lives {
		l.h.Flush()
		wn.FlushNo(l.n)
	}
	if err := wh.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wn.Close(); err != nil {
		t.Fatal(err)
	}
	if reused == 0 {
		t.Fatal("no number was given again")
	}
	if !bytes.Equal(viaHandles.Bytes(), viaNumbers.Bytes()) {
		t.Fatalf("the files differ: %d bytes through handles, %d through numbers", len(viaHandles.Bytes()), len(viaNumbers.Bytes()))
	}
	file, err := reader.NewFileBytes(viaNumbers.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := file.Verify(); err != nil {
		t.Fatal(err)
	}
}

// check fails t if the two writes disagree or either failed.
func check(t *testing.T, viaHandle, viaNumber error) {
	t.Helper()
	if viaHandle != nil || viaNumber != nil {
		t.Fatalf("through a handle: %v; through a number: %v", viaHandle, viaNumber)
	}
}

// TestNumberedThreadsClose: Close writes the numbered threads' pending
// runs, a number that names no thread is refused with ErrForgotten, and
// every number with ErrClosed after Close; Reset starts them again.
func TestNumberedThreadsClose(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{Compression: tachyon.CompressionZstd})
	f := w.Frame(tachyon.Frame{File: "g.go", Func: "g", Line: 1})
	a, b := w.NewThreadNo(1, 0), w.NewThreadNo(2, 0)
	for _, n := range []writer.ThreadNo{a, b} {
		if err := w.WriteNo(n, 10, 0, []uint32{f}); err != nil {
			t.Fatal(err)
		}
		if err := w.RepeatEveryNo(n, 20, 10, 5, 0); err != nil {
			t.Fatal(err)
		}
	}
	w.ForgetNo(b)
	for _, n := range []writer.ThreadNo{0, b, b + 1, 1 << 31} {
		if err := w.WriteNo(n, 100, 0, []uint32{f}); !errors.Is(err, writer.ErrForgotten) {
			t.Errorf("WriteNo(%d): %v, want ErrForgotten", n, err)
		}
		if err := w.RepeatEveryNo(n, 100, 10, 2, 0); !errors.Is(err, writer.ErrForgotten) {
			t.Errorf("RepeatEveryNo(%d): %v, want ErrForgotten", n, err)
		}
		w.FlushNo(n)
		w.ForgetNo(n)
	}
	if c := w.NewThreadNo(3, 0); c != b {
		t.Errorf("the next new thread is %d, want the forgotten number %d", c, b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteNo(a, 200, 0, []uint32{f}); !errors.Is(err, writer.ErrClosed) {
		t.Errorf("WriteNo after Close: %v, want ErrClosed", err)
	}
	file, err := reader.NewFileBytes(m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := file.Verify(); err != nil {
		t.Fatal(err)
	}
	if file.Header.ThreadCount != 2 || file.Header.SampleCount != 12 {
		t.Fatalf("header: %d threads %d samples, want 2 and 12", file.Header.ThreadCount, file.Header.SampleCount)
	}
	// After Reset the numbers start again.
	var next seekbuf.Buffer
	if err := w.Reset(&next, writer.Options{}); err != nil {
		t.Fatal(err)
	}
	f = w.Frame(tachyon.Frame{File: "g.go", Func: "g", Line: 1})
	if c := w.NewThreadNo(4, 0); c != 1 {
		t.Errorf("the first thread after Reset is %d, want 1", c)
	}
	if err := w.WriteNo(1, 10, 0, []uint32{f}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteNo(2, 10, 0, []uint32{f}); !errors.Is(err, writer.ErrForgotten) {
		t.Errorf("WriteNo of a number of the last file: %v, want ErrForgotten", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if file, err = reader.NewFileBytes(next.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := file.Verify(); err != nil || file.Header.ThreadCount != 1 {
		t.Fatalf("after Reset: %v, %d threads", err, file.Header.ThreadCount)
	}
}

// TestNumberedThreadsAllocs: a numbered thread's steady samples (a
// second of a parked goroutine's ticks, flushed) allocate no more than a
// handle's, and the numbers themselves nothing: what allocates is the
// compressor's, every few buffers.
func TestNumberedThreadsAllocs(t *testing.T) {
	seconds := func(numbered bool) float64 {
		var d seekbuf.Discard
		w, _ := writer.New(&d, writer.Options{Compression: tachyon.CompressionZstd})
		defer w.Close()
		f := w.Frame(tachyon.Frame{File: "g.go", Func: "g", Line: 1})
		ns := make([]writer.ThreadNo, 1000)
		hs := make([]*writer.Thread, len(ns))
		for i := range ns {
			if numbered {
				ns[i] = w.NewThreadNo(uint64(i+1), 0)
				check(t, nil, w.WriteNo(ns[i], 0, 0, []uint32{f}))
			} else {
				hs[i] = w.NewThread(uint64(i+1), 0)
				check(t, hs[i].Write(0, 0, []uint32{f}), nil)
			}
		}
		ts := uint64(10)
		second := func() {
			for i := range ns {
				if numbered {
					check(t, nil, w.RepeatEveryNo(ns[i], ts, 10, 100, 0))
					w.FlushNo(ns[i])
				} else {
					check(t, hs[i].RepeatEvery(ts, 10, 100, 0), nil)
					hs[i].Flush()
				}
			}
			ts += 1000
		}
		for range 5 {
			second()
		}
		return testing.AllocsPerRun(20, second)
	}
	if n, h := seconds(true), seconds(false); n > h {
		t.Errorf("%v allocations a second of 1,000 numbered threads, %v of handles", n, h)
	}
}

// TestSharedStacksChurn writes threads, half numbered, half through
// handles, whose stacks change among more distinct stacks than the shared
// table holds, flushed (shared) and forgotten at random: every sample
// reads back with its stack, and the buffers' bookkeeping holds
// throughout.
func TestSharedStacksChurn(t *testing.T) {
	var m seekbuf.Buffer
	w, _ := writer.New(&m, writer.Options{StartTime: 1, Compression: tachyon.CompressionZstd})
	var frames []uint32
	for i := range 400 {
		frames = append(frames, w.Frame(tachyon.Frame{File: "s.go", Func: "fn", Line: int32(i)}))
	}
	type th struct {
		h     *writer.Thread
		n     writer.ThreadNo
		id    uint64
		ts    uint64
		stack []uint32
	}
	write := func(g *th, ts uint64, stack []uint32) error {
		if g.h != nil {
			return g.h.Write(ts, 0, stack)
		}
		return w.WriteNo(g.n, ts, 0, stack)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	want := map[uint64][][]uint32{}
	var live []*th
	distinct, tableMost, restarts := 0, 0, 0
	for op := range 600000 {
		if len(live) < 300 && rng.IntN(3) == 0 {
			g := &th{id: uint64(op + 1), ts: 1}
			if op%2 == 0 {
				g.h = w.NewThread(g.id, 0)
			} else {
				g.n = w.NewThreadNo(g.id, 0)
			}
			live = append(live, g)
		}
		if len(live) == 0 {
			continue
		}
		i := rng.IntN(len(live))
		g := live[i]
		switch r := rng.IntN(10); {
		case r < 5 || g.stack == nil:
			if rng.IntN(4) == 0 { // one of the parked goroutines' few stacks
				g.stack = []uint32{frames[rng.IntN(4)], frames[399]}
			} else { // one of 960,000
				distinct++
				k := rng.IntN(960000)
				g.stack = []uint32{frames[k%400], frames[k/400%400], frames[k/160000], frames[399]}
			}
			if rng.IntN(50) == 0 {
				g.stack = nil
			}
			g.ts++
			if err := write(g, g.ts, g.stack); err != nil {
				t.Fatal(err)
			}
			want[g.id] = append(want[g.id], slices.Clone(g.stack))
		case r < 9:
			if g.h != nil {
				g.h.Flush()
			} else {
				w.FlushNo(g.n)
			}
		default:
			if g.h != nil {
				g.h.Forget()
			} else {
				w.ForgetNo(g.n)
			}
			live = append(live[:i], live[i+1:]...)
		}
		if n := writer.SharedStacks(w); n < tableMost {
			restarts++
		}
		tableMost = writer.SharedStacks(w)
		if op%5000 == 0 {
			if err := writer.CheckStacks(w); err != nil {
				t.Fatalf("after %d operations: %v", op, err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.NewFileBytes(m.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	pos := map[uint64]int{}
	it := f.Samples()
	for it.Next() {
		s := it.Sample()
		i := pos[s.ThreadID]
		pos[s.ThreadID]++
		ws := want[s.ThreadID][i]
		got := it.Frames(nil)
		if len(got) != len(ws) {
			t.Fatalf("thread %d sample %d: depth %d, want %d", s.ThreadID, i, len(got), len(ws))
		}
		for j := range got {
			if got[j].Line != int32(ws[j]) {
				t.Fatalf("thread %d sample %d frame %d: line %d, want %d", s.ThreadID, i, j, got[j].Line, ws[j])
			}
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if restarts < 1 {
		t.Fatalf("the shared table started afresh %d times, want once or more", restarts)
	}
}

// TestNumberedThreadsMemory: numbered threads' records lie off the Go
// heap, Close gives them back, and so does the collector for a Writer
// dropped without Close.
func TestNumberedThreadsMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("records lie on the heap where package offheap cannot map")
	}
	before := offheap.InUse()
	open := func() *writer.Writer {
		var d seekbuf.Discard
		w, _ := writer.New(&d, writer.Options{})
		for i := range 3000 {
			w.NewThreadNo(uint64(i+1), 0)
		}
		if offheap.InUse() <= before {
			t.Fatal("3,000 numbered threads took nothing off the heap")
		}
		return w
	}
	if err := open().Close(); err != nil {
		t.Fatal(err)
	}
	if d := offheap.InUse() - before; d > 0 {
		t.Fatalf("after Close: %d bytes off the heap still in use", d)
	}
	open() // dropped
	deadline := time.Now().Add(10 * time.Second)
	for offheap.InUse() > before { // less: another test's dropped Writer went too
		if time.Now().After(deadline) {
			t.Fatalf("a dropped Writer's records: %d bytes off the heap still in use", offheap.InUse()-before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRepeatFlushNo: RepeatFlushNo writes the same file as RepeatEveryNo
// then FlushNo (when it returned no error), and returns the same errors,
// over one random stream of samples: runs that go on where the thread
// left off and ones that do not, steps too long for a tail, runs longer
// than a record, threads with no sample yet and forgotten ones.
func TestRepeatFlushNo(t *testing.T) {
	opts := writer.Options{StartTime: 1000, Compression: tachyon.CompressionZstd, MaxPendingBytes: 4096}
	var apart, together seekbuf.Buffer
	wa, _ := writer.New(&apart, opts)
	wt, _ := writer.New(&together, opts)
	stack := []uint32{wa.Frame(tachyon.Frame{File: "f.go", Func: "fn", Line: 1})}
	wt.Frame(tachyon.Frame{File: "f.go", Func: "fn", Line: 1})
	type live struct {
		n  writer.ThreadNo
		ts uint64
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var lives []live
	var forgotten []writer.ThreadNo
	fused := 0
	for id := uint64(1); id < 30000; id++ {
		if len(lives) < 200 && rng.IntN(3) == 0 {
			n := wa.NewThreadNo(id, 0)
			if m := wt.NewThreadNo(id, 0); m != n {
				t.Fatalf("numbers %d and %d", n, m)
			}
			l := live{n: n, ts: 1000}
			if rng.IntN(10) != 0 { // else its first run has no stack
				check(t, wa.WriteNo(n, l.ts, 0, stack), wt.WriteNo(n, l.ts, 0, stack))
			}
			lives = append(lives, l)
			continue
		}
		if len(lives) == 0 {
			continue
		}
		i := rng.IntN(len(lives))
		l := &lives[i]
		st := tachyon.Status(rng.IntN(4))
		step := uint64(10)
		switch rng.IntN(8) {
		case 0:
			step = 1 << 30 // a pair longer than a tail holds
		case 1:
			l.ts += 3 // not where the thread left off
		}
		k := rng.IntN(40)
		if rng.IntN(50) == 0 {
			k = 20000 // longer than a record
		}
		n := l.n
		if len(forgotten) > 0 && rng.IntN(20) == 0 {
			n = forgotten[rng.IntN(len(forgotten))]
		}
		switch rng.IntN(6) {
		case 0:
			if a, b := wa.RepeatEveryNo(n, l.ts+step, step, k, st), wt.RepeatEveryNo(n, l.ts+step, step, k, st); !errors.Is(b, a) {
				t.Fatalf("RepeatEveryNo: %v, then %v", a, b)
			}
		case 1:
			wa.ForgetNo(n)
			wt.ForgetNo(n)
			if n == l.n {
				forgotten = append(forgotten, n)
				lives = append(lives[:i], lives[i+1:]...)
			}
			continue
		default:
			err := wa.RepeatEveryNo(n, l.ts+step, step, k, st)
			if err == nil {
				wa.FlushNo(n)
			}
			if got := wt.RepeatFlushNo(n, l.ts+step, step, k, st); !errors.Is(got, err) {
				t.Fatalf("RepeatFlushNo: %v; RepeatEveryNo: %v", got, err)
			}
			fused++
		}
		if n == l.n {
			l.ts += uint64(k) * step
		}
	}
	if err := wa.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wt.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(apart.Bytes(), together.Bytes()) {
		t.Fatalf("the files differ: %d bytes apart, %d together", len(apart.Bytes()), len(together.Bytes()))
	}
	file, err := reader.NewFileBytes(together.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := file.Verify(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs in one call, %d bytes", fused, len(together.Bytes()))
}
