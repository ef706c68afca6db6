package recent

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

const (
	t0   = uint64(1_700_000_000_000_000) // µs
	step = uint64(10_000)                // 100 Hz
	gen  = 100                           // ticks a generation
)

// seekBuf is an in-memory io.WriteSeeker for the tests' outputs.
type seekBuf struct{ buffer }

func (b *seekBuf) bytes() []byte { return b.b }

// readAll reads a file's samples as (goroutine, ts) counts and checks it.
func readAll(t *testing.T, data []byte) (f *reader.File, samples []*reader.Sample) {
	t.Helper()
	f, err := reader.NewFileBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(); err != nil {
		t.Fatalf("the file does not verify: %v", err)
	}
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := *it.Sample()
		s.Stack = append([]uint32(nil), s.Stack...)
		samples = append(samples, &s)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return f, samples
}

func us(ts uint64) time.Time { return time.UnixMicro(int64(ts)) }

// TestWriteFileExact writes a minute and a half of parked, busy and
// short-lived goroutines, and checks that a file of any span holds
// exactly the samples written in it, and states it.
func TestWriteFileExact(t *testing.T) {
	w, err := New(Options{Duration: time.Minute, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	s := newSim(w, t0, step, 300, true)
	for range 150 {
		s.spawn(false, 0)
	}
	for range 50 {
		s.spawn(true, 0)
	}
	for g := range 90 {
		for range 20 {
			s.spawn(g%2 == 0, 37) // short-lived: they end within the generation
		}
		s.generation(gen)
	}
	w.Close()
	st := w.Stats()
	end := s.now
	if st.Early != 0 || st.Err != nil {
		t.Fatalf("stats %+v", st)
	}
	if want := end - 60_000_000; uint64(st.Since.UnixMicro()) > want {
		t.Errorf("the window holds from %v, want at most %v", st.Since, us(want))
	}
	t.Logf("stats: %+v", st)
	for _, c := range []struct{ from, to uint64 }{
		{end - 30_000_000, end},
		{end - 59_500_000 + 3, end - 59_000_000 + 7},
		{end - 1_234_567, end - 1_000},
		{end - 45_000_000, end - 44_990_000}, // one tick
	} {
		var out seekBuf
		sp, err := w.WriteFile(context.Background(), &out, us(c.from), us(c.to))
		if err != nil {
			t.Fatal(err)
		}
		if uint64(sp.From.UnixMicro()) != c.from || uint64(sp.To.UnixMicro()) != c.to {
			t.Errorf("span %v..%v, want %v..%v", sp.From, sp.To, us(c.from), us(c.to))
		}
		f, samples := readAll(t, out.bytes())
		if f.Header.StartTime != c.from {
			t.Errorf("header start %d, want %d", f.Header.StartTime, c.from)
		}
		for _, x := range samples {
			if x.Timestamp < c.from || x.Timestamp >= c.to {
				t.Fatalf("sample of goroutine %d at %d outside [%d, %d)", x.ThreadID, x.Timestamp, c.from, c.to)
			}
		}
		want, wantG := s.expect(c.from, c.to)
		if uint64(len(samples)) != want || sp.Samples != want || sp.Goroutines != wantG {
			t.Errorf("span of %v: %d samples (span says %d of %d goroutines), want %d of %d", us(c.to).Sub(us(c.from)), len(samples), sp.Samples, sp.Goroutines, want, wantG)
		}
	}
	// Older than the window: From is where the window starts.
	var out seekBuf
	sp, err := w.WriteFile(context.Background(), &out, us(t0), us(end))
	if err != nil {
		t.Fatal(err)
	}
	if !sp.From.Equal(st.Since) {
		t.Errorf("from the start: span from %v, want the window's %v", sp.From, st.Since)
	}
	_, samples := readAll(t, out.bytes())
	if want, _ := s.expect(uint64(st.Since.UnixMicro()), end); uint64(len(samples)) != want {
		t.Errorf("from the window's start: %d samples, want %d", len(samples), want)
	}
}

// TestTeeSameAsPrimary writes through Tee into a writer.Writer and a
// window, and checks that the window's file of the whole profile has the
// primary file's samples, stacks and all.
func TestTeeSameAsPrimary(t *testing.T) {
	var pbuf seekBuf
	pw, err := writer.New(&pbuf, writer.Options{StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(Options{Duration: time.Hour, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	// The primary knows frames the window does not: indices differ.
	pw.Frame(tachyonFrame("other"))
	tee := Tee(primarySink{pw}, w)
	s := newSim(tee, t0, step, 100, false)
	for i := range 40 {
		s.spawn(i%3 == 0, uint64(i%5)*50)
	}
	for range 30 {
		s.generation(gen)
	}
	for _, g := range s.gs {
		s.write(g, s.now)
	}
	w.Close()
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	var out seekBuf
	if _, err := w.WriteFile(context.Background(), &out, us(t0), us(s.now+1)); err != nil {
		t.Fatal(err)
	}
	sameSamples(t, pbuf.bytes(), out.bytes())
}

// sameSamples checks that the window's file has the primary file's
// samples, stacks and all, in whatever order.
func sameSamples(t *testing.T, primary, window []byte) {
	t.Helper()
	pf, ps := readAll(t, primary)
	wf, ws := readAll(t, window)
	if len(ps) != len(ws) || len(ps) == 0 {
		t.Fatalf("%d samples in the window, %d in the primary", len(ws), len(ps))
	}
	key := func(f *reader.File, x *reader.Sample) string {
		k := string(rune(x.ThreadID)) + "@" + time.UnixMicro(int64(x.Timestamp)).String() + x.Status.State().String()
		for _, i := range x.Stack {
			fr := f.Frame(i)
			k += "|" + fr.Func
		}
		return k
	}
	count := map[string]int{}
	for _, x := range ps {
		count[key(pf, x)]++
	}
	for _, x := range ws {
		count[key(wf, x)]--
	}
	for k, n := range count {
		if n != 0 {
			t.Fatalf("sample %s: %+d in the primary over the window", k, n)
		}
	}
}

// TestWriteFileWhileWriting asks for the last seconds while a sampler
// writes, and checks that the file covers them to the end: WriteFile
// waits for the watermark.
func TestWriteFileWhileWriting(t *testing.T) {
	w, err := New(Options{Duration: 20 * time.Second, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	s := newSim(w, t0, step, 100, true)
	for i := range 100 {
		s.spawn(i%4 == 0, 0)
	}
	var now atomic.Uint64
	now.Store(s.now)
	var mu sync.Mutex // the sim's record, read by the check
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				mu.Lock()
				w.Close()
				mu.Unlock()
				return
			default:
			}
			mu.Lock()
			s.generation(gen)
			mu.Unlock()
			now.Store(s.now)
			time.Sleep(time.Millisecond)
		}
	}()
	for now.Load() < t0+30_000_000 {
		time.Sleep(time.Millisecond)
	}
	for range 3 {
		end := now.Load() - 123
		var out seekBuf
		sp, err := w.WriteFile(context.Background(), &out, us(end-10_000_000), us(end))
		if err != nil {
			t.Fatal(err)
		}
		if uint64(sp.To.UnixMicro()) != end || uint64(sp.From.UnixMicro()) != end-10_000_000 {
			t.Errorf("span %v..%v, want the last 10 s before %v", sp.From, sp.To, us(end))
		}
		_, samples := readAll(t, out.bytes())
		mu.Lock()
		want, _ := s.expect(end-10_000_000, end)
		mu.Unlock()
		if uint64(len(samples)) != want {
			t.Errorf("%d samples, want %d", len(samples), want)
		}
	}
	close(stop)
	<-done
}

// TestWriteFileAfterRelease fails with ErrClosed.
func TestWriteFileAfterRelease(t *testing.T) {
	w, err := New(Options{StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	w.Release()
	if _, err := w.WriteFile(context.Background(), &seekBuf{}, us(t0), us(t0+1)); err != ErrClosed {
		t.Errorf("err %v, want ErrClosed", err)
	}
}

// TestWriteFileGivesUp bounds the wait: a sampler that writes nothing
// more leaves a span that ends where the window is complete, and the log
// says so.
func TestWriteFileGivesUp(t *testing.T) {
	var logs []string
	logf := func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) }
	w, err := New(Options{StartTime: t0, Interval: step, MaxWait: 50 * time.Millisecond, Logf: logf})
	if err != nil {
		t.Fatal(err)
	}
	s := newSim(w, t0, step, 10, false)
	s.spawn(false, 0)
	for range 5 {
		s.generation(gen)
	}
	begin := time.Now()
	sp, err := w.WriteFile(context.Background(), &seekBuf{}, us(t0), us(s.now+10_000_000))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begin); d > 5*time.Second {
		t.Errorf("waited %v", d)
	}
	if c := w.Stats().Complete; !sp.To.Equal(c) || c.After(us(s.now)) {
		t.Errorf("span to %v, window complete %v, sim at %v", sp.To, c, us(s.now))
	}
	if len(logs) != 1 || !strings.Contains(logs[0], "not all in after a wait of 50ms") || !strings.Contains(logs[0], sp.To.Format(time.RFC3339Nano)) {
		t.Errorf("the log: %q", logs)
	}
}

// heapBytes returns the live heap after a collection.
func heapBytes() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestHeapBound10k keeps 75 s of 10,000 goroutines, most parked,
// in a window of the default bound, and checks that the heap it holds is
// within the bound, and that it holds its whole minute.
func TestHeapBound10k(t *testing.T) {
	s := newSim(nil, t0, step, 0, false)
	for i := range 10_000 {
		s.spawn(i%500 == 0, 0) // 20 running
	}
	base := heapBytes()
	w, err := New(Options{Duration: time.Minute, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	s.sink = w
	s.frames = newSim(w, t0, step, 2000, false).frames
	peak, peakSt := uint64(0), Stats{}
	for g := range 75 {
		s.generation(gen)
		if g >= 50 && g%8 == 2 {
			if h := heapBytes() - base; h > peak {
				peak, peakSt = h, w.Stats()
			}
		}
	}
	st := w.Stats()
	t.Logf("10,000 goroutines: window heap peak %.1f MiB (accounted %.1f MiB, %d chunks); now %+v", mib(peak), mib(uint64(peakSt.Bytes)), peakSt.Chunks, st)
	if peak > DefaultMaxBytes {
		t.Errorf("the window held %.1f MiB, above its bound %.1f MiB", mib(peak), mib(DefaultMaxBytes))
	}
	if st.Bytes > DefaultMaxBytes {
		t.Errorf("the window accounts %.1f MiB, above its bound", mib(uint64(st.Bytes)))
	}
	if st.Dropped > 0 || uint64(st.Since.UnixMicro()) > s.now-65_000_000 {
		t.Errorf("the window dropped %d chunks for the bound and holds from %v: not a whole minute before %v", st.Dropped, st.Since, us(s.now))
	}
	runtime.KeepAlive(w)
}

// TestHeapBoundChurn runs 60,000 new goroutines a second through a
// window, each sampled once, and checks that its heap stays within the
// bound, which the churn reaches (the window then holds less than its
// duration), and that its state per goroutine is released.
func TestHeapBoundChurn(t *testing.T) {
	const bound = 8 << 20 // reached within the test's seconds
	s := newSim(nil, t0, step, 0, false)
	for range 1000 {
		s.spawn(false, 0)
	}
	base := heapBytes()
	w, err := New(Options{Duration: time.Minute, MaxBytes: bound, StartTime: t0, Interval: step})
	if err != nil {
		t.Fatal(err)
	}
	s.sink = w
	s.frames = newSim(w, t0, step, 500, false).frames
	var heap []uint64
	for g := range 24 {
		for range 60_000 {
			s.spawn(g%2 == 0, 1)
		}
		s.generation(gen)
		if g%4 == 3 {
			heap = append(heap, heapBytes()-base)
		}
	}
	st := w.Stats()
	t.Logf("churn: window heap %.1f MiB by 4 s, %d threads live, holds the last %v; %+v", mibs(heap), w.live, us(s.now).Sub(st.Since), st)
	for _, h := range heap {
		if h > bound+bound/8 {
			t.Errorf("the window held %.1f MiB, above its bound %.1f MiB", mib(h), mib(bound))
		}
	}
	if st.Dropped == 0 {
		t.Errorf("the bound was not reached: %+v", st)
	}
	if w.live > 1000 || len(w.threads) != 0 {
		t.Errorf("%d threads live, %d kept by id; want the 1,000 live ones, none by id", w.live, len(w.threads))
	}
	runtime.KeepAlive(w)
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

func mibs(v []uint64) []float64 {
	out := make([]float64, len(v))
	for i, b := range v {
		out[i] = mib(b)
	}
	return out
}

var _ io.WriteSeeker = (*seekBuf)(nil)

// primarySink is the sampler.Sink of a writer.Writer.
type primarySink struct{ w *writer.Writer }

func (p primarySink) Frame(f tachyon.Frame) uint32 { return p.w.Frame(f) }

func (p primarySink) Goroutine(id uint64) sampler.Goroutine { return p.w.Thread(id, 0) }

func tachyonFrame(name string) tachyon.Frame { return tachyon.Frame{File: "x.go", Func: name, Line: 1} }
