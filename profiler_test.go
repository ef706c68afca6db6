package profiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	xtrace "golang.org/x/exp/trace"
)

var quiet = WithQuiet(true)

// busy keeps one goroutine on CPU and one blocked until stop is closed.
func busy(stop chan struct{}) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for x := 0; ; x++ {
			if x%1024 == 0 {
				select {
				case <-stop:
					return
				default:
				}
			}
		}
	}()
	go func() { defer wg.Done(); <-stop }()
	return &wg
}

func profileFor(t *testing.T, d time.Duration, opts ...Option) (string, *Profile) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.bin")
	stop := make(chan struct{})
	wg := busy(stop)
	before := time.Now()
	p := Start(append([]Option{WithPath(path), quiet}, opts...)...)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	err := p.Stop()
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st := int64(f.Header.StartTime); st < before.UnixMicro() || st > time.Now().UnixMicro() {
		t.Errorf("header start time %d outside [%d, now]", st, before.UnixMicro())
	}
	return path, p
}

// TestModesValid profiles a busy and a blocked goroutine in each mode and
// checks the file: valid, at the rate asked, with samples. A run too short
// for a loaded machine to give it a sample (in CPU mode, the busy goroutine
// may get little CPU) is retried longer.
func TestModesValid(t *testing.T) {
	for _, m := range []sampler.Mode{sampler.Wall, sampler.CPU} {
		t.Run(m.String(), func(t *testing.T) {
			testutil.Retry(t, 300*time.Millisecond, 4, func(d time.Duration) error {
				path, p := profileFor(t, d, WithMode(m), WithRate(200))
				if b := p.Backend(); b != sampler.Trace && b != sampler.Snapshot {
					t.Errorf("Backend() = %v", b)
				}
				n := proftest.Validate(t, path)
				f, _ := reader.Open(path)
				defer f.Close()
				if f.Header.Interval != 5000 {
					t.Errorf("interval %d µs, want 5000 for 200 Hz", f.Header.Interval)
				}
				if n == 0 {
					return fmt.Errorf("no samples in %v", d)
				}
				return nil
			})
		})
	}
}

func TestStopTwiceAndConcurrently(t *testing.T) {
	var b seekbuf.Buffer
	p := Start(WithOutput(&b), quiet)
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	if p.Stats().Samples != 0 {
		t.Error("Stats before Stop not zero")
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = p.Stop() }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Stop #%d: %v", i, err)
		}
	}
	if err := p.Stop(); err != nil {
		t.Errorf("Stop after Stop: %v", err)
	}
	if p.Stats().Backend == sampler.Auto {
		t.Error("Stats after Stop: no backend")
	}
	f, err := reader.NewFileBytes(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(); err != nil {
		t.Fatal(err)
	}
}

func TestSecondStartRefused(t *testing.T) {
	dir := t.TempDir()
	p1 := Start(WithPath(filepath.Join(dir, "1.bin")), quiet)
	if err := p1.Err(); err != nil {
		t.Fatal(err)
	}
	var logBuf bytes.Buffer
	second := filepath.Join(dir, "2.bin")
	p2 := Start(WithPath(second), quiet, WithLogger(log.New(&logBuf, "", 0)))
	if !errors.Is(p2.Err(), ErrRunning) || !errors.Is(p2.Err(), sampler.ErrRunning) {
		t.Errorf("second Start: Err() = %v, want ErrRunning", p2.Err())
	}
	if err := p2.Stop(); !errors.Is(err, ErrRunning) {
		t.Errorf("second Stop = %v, want ErrRunning", err)
	}
	if n := strings.Count(logBuf.String(), "\n"); n != 1 {
		t.Errorf("refusal logged %d times, want once:\n%s", n, logBuf.String())
	}
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Errorf("refused Start touched its output: %v", err)
	}
	if err := p1.Stop(); err != nil {
		t.Fatal(err)
	}
	proftest.Validate(t, filepath.Join(dir, "1.bin"))
	p3 := Start(WithPath(second), quiet) // free again after Stop
	if err := p3.Stop(); err != nil {
		t.Fatalf("Start after Stop: %v", err)
	}
}

func TestBadOptions(t *testing.T) {
	var logBuf bytes.Buffer
	path := filepath.Join(t.TempDir(), "x.bin")
	for _, o := range []Option{WithRate(0), WithRate(20000), WithMode(9), WithPath(""), WithOutput(nil), WithCompression(7), WithBackend(9)} {
		p := Start(WithPath(path), o, WithLogger(log.New(&logBuf, "", 0)))
		if p.Err() == nil || p.Stop() != p.Err() {
			t.Errorf("bad option accepted: Err %v", p.Err())
		}
		if p.Backend() != sampler.Auto {
			t.Errorf("Backend of failed profile = %v", p.Backend())
		}
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("failed Start created its output")
	}
	if Start(WithPath(filepath.Join(t.TempDir(), "no", "such", "dir", "x.bin")), quiet, WithLogger(log.New(io.Discard, "", 0))).Err() == nil {
		t.Error("uncreatable path accepted")
	}
	// the slot is free again
	if err := Start(WithOutput(new(seekbuf.Buffer)), quiet).Stop(); err != nil {
		t.Fatal(err)
	}
}

// onlyWS hides every method but Write and Seek.
type onlyWS struct{ io.WriteSeeker }

func TestExports(t *testing.T) {
	dir := t.TempDir()
	count := func(f *reader.File, w io.Writer) error {
		_, err := fmt.Fprintf(w, "%d samples", f.Header.SampleCount)
		return err
	}
	boom := errors.New("boom")
	fails := func(*reader.File, io.Writer) error { return boom }
	panics := func(*reader.File, io.Writer) error { panic("export bug") }
	outputs := map[string]func() Option{
		"path":     func() Option { return WithPath(filepath.Join(dir, "p.bin")) },
		"readerAt": func() Option { b := new(seekbuf.Buffer); b.Write([]byte("junk")); return WithOutput(b) },
	}
	// Exports read the profile back: a writer that is not an io.ReaderAt is
	// refused at Start, not mirrored in memory.
	p := Start(WithOutput(onlyWS{new(seekbuf.Buffer)}), quiet, WithLogger(log.New(io.Discard, "", 0)), WithExport(filepath.Join(dir, "x"), count))
	if !errors.Is(p.Err(), errExportsNeedReaderAt) || !errors.Is(p.Stop(), errExportsNeedReaderAt) {
		t.Errorf("exports with a seek-only writer: Err %v, want %v", p.Err(), errExportsNeedReaderAt)
	}
	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			good := filepath.Join(dir, name+".txt")
			p := Start(out(), quiet, WithLogger(log.New(io.Discard, "", 0)),
				WithExport(good, count), WithExport(filepath.Join(dir, "bad"), fails),
				WithExport(filepath.Join(dir, "panic"), panics))
			time.Sleep(30 * time.Millisecond)
			err := p.Stop()
			if !errors.Is(err, boom) || !strings.Contains(fmt.Sprint(err), "export bug") {
				t.Errorf("Stop = %v, want the export errors joined", err)
			}
			b, rerr := os.ReadFile(good)
			if rerr != nil {
				t.Fatal(rerr)
			}
			if want := fmt.Sprintf("%d samples", p.Stats().Samples); string(b) != want {
				t.Errorf("export wrote %q, want %q", b, want)
			}
		})
	}
}

// counter is an Observer that counts the on-CPU samples it is told of
// and is closed with err.
type counter struct {
	cpu, closed atomic.Int64
	err         error
}

func (c *counter) OnCPU(g, ts uint64, leafPC uintptr) { c.cpu.Add(1) }

func (c *counter) Close() error { c.closed.Add(1); return c.err }

// TestObserver checks that CPU mode with the trace backend tells both
// observers of a busy goroutine's samples, as many each, and that Stop
// closes each once and returns the error of the one that fails, while an
// observer that cannot be closed is told all the same. A run in which a
// loaded machine gave the busy goroutine no CPU sample is retried longer.
func TestObserver(t *testing.T) {
	testutil.Retry(t, 300*time.Millisecond, 4, func(d time.Duration) error {
		failing, ok := &counter{err: errors.New("dcpi")}, &counter{}
		var plain atomic.Int64
		p := Start(WithOutput(new(seekbuf.Buffer)), quiet, WithMode(sampler.CPU),
			WithObserver(failing), WithObserver(onCPU(func() { plain.Add(1) })), WithObserver(ok))
		stop := make(chan struct{})
		wg := busy(stop)
		time.Sleep(d)
		err := p.Stop()
		close(stop)
		wg.Wait()
		if err == nil || !strings.Contains(err.Error(), "dcpi") {
			t.Errorf("Stop = %v, want the failing observer's error", err)
		}
		if failing.closed.Load() != 1 || ok.closed.Load() != 1 {
			t.Errorf("observers closed %d and %d times, want once each", failing.closed.Load(), ok.closed.Load())
		}
		n := failing.cpu.Load()
		if ok.cpu.Load() != n || plain.Load() != n {
			t.Errorf("observers told of %d, %d and %d samples, want as many each", n, plain.Load(), ok.cpu.Load())
		}
		if p.Backend() == sampler.Trace && n == 0 { // snapshots have no PCs
			return fmt.Errorf("no on-CPU sample told in %v of CPU mode with a busy goroutine", d)
		}
		return nil
	})
	if err := Start(WithObserver(nil)).Err(); err == nil {
		t.Error("WithObserver(nil) accepted")
	}
}

// onCPU is an Observer without Close.
type onCPU func()

func (f onCPU) OnCPU(g, ts uint64, leafPC uintptr) { f() }

// TestStartStopLoop starts and stops 1,000 times and checks that neither
// goroutines nor memory leak. Under the race detector, which looks for
// races between Start and Stop rather than for slow leaks, it loops 300
// times: each loop takes five times as long there.
func TestStartStopLoop(t *testing.T) {
	n := 1000
	switch {
	case testing.Short():
		n = 100
	case testutil.Race:
		n = 300
	}
	measure := func() (int, uint64) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return runtime.NumGoroutine(), ms.HeapInuse
	}
	var g0 int
	var h0 uint64
	for i := range n {
		if i == n/10 {
			g0, h0 = measure()
		}
		p := Start(WithOutput(new(seekbuf.Buffer)), quiet)
		if err := p.Stop(); err != nil {
			t.Fatalf("iteration %d: %v", i, err)
		}
	}
	var g1 int
	var h1 uint64
	// Let exiting goroutines finish; a loaded machine may take a while.
	testutil.WaitFor(10*time.Second, func() bool { g1, h1 = measure(); return g1 <= g0 })
	if g1 > g0 {
		t.Errorf("goroutines: %d after %d iterations, %d after %d", g1, n, g0, n/10)
	}
	if h1 > h0+8<<20 {
		t.Errorf("heap in use grew from %d to %d bytes", h0, h1)
	}
}

// TestAppTrace checks that, with the application already tracing, profiling
// reads the trace through the flight recorder's slot and the application's
// trace stays intact. A run too short for a loaded machine to give a
// sample is retried longer.
func TestAppTrace(t *testing.T) {
	testutil.Retry(t, 200*time.Millisecond, 4, func(d time.Duration) error {
		var tb bytes.Buffer
		if err := trace.Start(&tb); err != nil {
			t.Skipf("cannot trace: %v", err)
		}
		path := filepath.Join(t.TempDir(), "p.bin")
		p := Start(WithPath(path), quiet)
		if err := p.Err(); err != nil {
			trace.Stop()
			t.Fatal(err)
		}
		stop := make(chan struct{})
		wg := busy(stop)
		trace.Log(context.Background(), "app", "marker")
		time.Sleep(d)
		perr := p.Stop()
		close(stop)
		wg.Wait()
		trace.Stop()
		if perr != nil {
			t.Fatal(perr)
		}
		if b := p.Backend(); b != sampler.Trace {
			t.Errorf("backend %v, want the trace, through the flight recorder's slot, while the app traces", b)
		}
		n := proftest.Validate(t, path)
		r, err := xtrace.NewReader(&tb)
		if err != nil {
			t.Fatalf("app trace: %v", err)
		}
		found := false
		for {
			ev, err := r.ReadEvent()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("app trace corrupted: %v", err)
			}
			if ev.Kind() == xtrace.EventLog && ev.Log().Message == "marker" {
				found = true
			}
		}
		if !found {
			t.Error("the app's trace lost its log event")
		}
		if n == 0 {
			return fmt.Errorf("no samples from the fallback in %v", d)
		}
		return nil
	})
}

func TestEnvOptions(t *testing.T) {
	t.Setenv(EnvOut, "")
	if _, ok, _ := EnvOptions(); ok {
		t.Error("profiling wanted without PROFILE_OUT")
	}
	t.Setenv(EnvOut, "x.bin")
	t.Setenv(EnvMode, "bogus")
	if _, _, err := EnvOptions(); err == nil {
		t.Error("bad PROFILE_MODE accepted")
	}
	t.Setenv(EnvMode, "cpu")
	t.Setenv(EnvRate, "1x")
	if _, _, err := EnvOptions(); err == nil {
		t.Error("bad PROFILE_RATE accepted")
	}
	t.Setenv(EnvRate, "50")
	opts, ok, err := EnvOptions()
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	if c.path != "x.bin" || c.mode != sampler.CPU || c.rate != 50 {
		t.Errorf("config %+v", c)
	}
}

// traceEvents reads a whole execution trace and counts its events.
func traceEvents(data []byte) (int, error) {
	r, err := xtrace.NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := r.ReadEvent()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}
