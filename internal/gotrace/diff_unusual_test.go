package gotrace_test

import (
	"bytes"
	"errors"
	"iter"
	"runtime"
	"runtime/debug"
	rtrace "runtime/trace"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// traceOf traces f in process and returns the trace.
func traceOf(t *testing.T, f func()) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := rtrace.Start(&buf); err != nil {
		t.Fatalf("cannot trace: %v", err)
	}
	f()
	rtrace.Stop()
	return buf.Bytes()
}

// sameLines fails t unless gotrace and x/exp/trace read data alike.
func sameLines(t *testing.T, data []byte) {
	t.Helper()
	if !bytes.HasPrefix(data, []byte("go 1.26 trace\x00\x00\x00")) {
		// Another wire format: gotrace refuses it, as TestSameAsXTrace
		// checks; x/exp/trace must read it all.
		if _, err := gotrace.NewReader(bytes.NewReader(data)); !errors.Is(err, gotrace.ErrVersion) {
			t.Fatalf("NewReader of %s's %.13q trace: %v, want ErrVersion", runtime.Version(), data, err)
		}
		t.Logf("%s writes %.13q: refused, and %d events read by x/exp/trace", runtime.Version(), data, len(xLines(t, data)))
		return
	}
	want, got := xLines(t, data), ourLines(t, data)
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			t.Fatalf("event %d of %d differs:\nx/exp/trace: %+v\ngotrace:     %+v", i, len(want), want[i], got[i])
		}
	}
	if len(want) != len(got) {
		t.Fatalf("%d events, x/exp/trace has %d", len(got), len(want))
	}
	syncs := 0
	for _, l := range want {
		if l.kind == "sync" {
			syncs++
		}
	}
	t.Logf("%d events, %d generations and %d bytes alike", len(want), syncs, len(data))
}

// TestSameAsXTraceUnusual compares gotrace with x/exp/trace on programs
// with unusual scheduling. Run it with GODEBUG=traceadvanceperiod=100000
// too: many short generations.
func TestSameAsXTraceUnusual(t *testing.T) {
	burst := 100000 // goroutines created and gone within a generation
	if testutil.Race {
		burst = 10000
	}
	cases := map[string]func(){
		"lockosthread": func() {
			var wg sync.WaitGroup
			for range 8 {
				wg.Go(func() {
					runtime.LockOSThread()
					ch := make(chan int)
					go func() { time.Sleep(time.Millisecond); ch <- 1 }()
					<-ch
					time.Sleep(time.Millisecond)
					// exits locked: the thread dies with it
				})
			}
			wg.Wait()
		},
		"goexit": func() {
			var wg sync.WaitGroup
			for range 100 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Microsecond)
					runtime.Goexit()
				}()
			}
			wg.Wait()
		},
		"gomaxprocs": func() {
			stop := make(chan struct{})
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for range 2000 { // bounded: the race detector makes each event dear
						select {
						case <-stop:
							return
						default:
							runtime.Gosched()
						}
					}
				})
			}
			old := runtime.GOMAXPROCS(0)
			for _, n := range []int{64, 1, 8, 2, 64, 3, 1, old} {
				runtime.GOMAXPROCS(n)
				time.Sleep(3 * time.Millisecond)
			}
			close(stop)
			wg.Wait()
		},
		"stw": func() {
			var ms runtime.MemStats
			old := debug.SetGCPercent(10)
			for i := range 30 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				debug.SetGCPercent(10 + i)
				_ = make([]byte, 1<<16)
			}
			debug.SetGCPercent(old)
		},
		"rawsyscall": func() {
			var p [2]int
			if err := syscall.Pipe(p[:]); err != nil {
				panic(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				var b [1]byte
				for range 5 {
					syscall.Read(p[0], b[:])
				}
			}()
			for range 5 {
				time.Sleep(2 * time.Millisecond)
				syscall.Write(p[1], []byte{1})
			}
			<-done
			syscall.Close(p[0])
			syscall.Close(p[1])
		},
		"timers": func() {
			var wg sync.WaitGroup
			for i := range 2000 {
				wg.Add(1)
				time.AfterFunc(time.Duration(i%50)*100*time.Microsecond, wg.Done)
			}
			for i := range 500 {
				wg.Go(func() { time.Sleep(time.Duration(i%20) * 100 * time.Microsecond) })
			}
			wg.Wait()
		},
		"pull": func() {
			for range 200 {
				next, stop := iter.Pull(func(yield func(int) bool) {
					for i := range 50 {
						if !yield(i) {
							return
						}
					}
				})
				for range 20 {
					next()
				}
				stop()
			}
		},
		"burst": func() {
			var wg sync.WaitGroup
			for range burst {
				wg.Go(func() {})
			}
			wg.Wait()
		},
	}
	for name, f := range cases {
		t.Run(name, func(t *testing.T) { sameLines(t, traceOf(t, f)) })
	}
}

// TestSameAsXTraceManyGoroutinesBefore compares the readers on a trace
// started while tens of thousands of goroutines already wait.
func TestSameAsXTraceManyGoroutinesBefore(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	n := 50000
	if testutil.Race {
		n = 5000
	}
	for range n {
		wg.Go(func() { <-stop })
	}
	data := traceOf(t, func() { time.Sleep(20 * time.Millisecond) })
	close(stop)
	wg.Wait()
	sameLines(t, data)
}
