package sampler

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
)

// workload runs goroutines in known states and records their ids.
type workload struct {
	ids  map[string]uint64
	stop atomic.Bool
	done func()
	wg   sync.WaitGroup
}

//go:noinline
func blockChan(ch chan int) { <-ch }

//go:noinline
func blockSelect(a, b chan int) {
	select {
	case <-a:
	case <-b:
	}
}

// blockMutex waits in Lock until the workload's done unlocks mu, and then
// keeps it: mu exists only to be waited on, and nothing locks it again.
//
//go:noinline
func blockMutex(mu *sync.Mutex) { mu.Lock() }

//go:noinline
func blockWaitGroup(wg *sync.WaitGroup) { wg.Wait() }

//go:noinline
func blockRead(f *os.File) {
	var b [1]byte
	f.Read(b[:])
}

//go:noinline
func sleepLoop(stop *atomic.Bool) {
	for !stop.Load() {
		time.Sleep(100 * time.Millisecond)
	}
}

var spinSink uint64

//go:noinline
func spinWork(n int) uint64 {
	x := uint64(n)
	for i := 0; i < 1000; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func spin(stop *atomic.Bool) {
	var x uint64
	for !stop.Load() {
		x += spinWork(int(x))
	}
	atomic.AddUint64(&spinSink, x)
}

// startWorkload starts one goroutine per state (spin only if withSpin) and
// waits until each has reported its id and had time to block.
func startWorkload(t testing.TB, withSpin bool) *workload {
	w := &workload{ids: make(map[string]uint64)}
	var mu sync.Mutex
	var idMu sync.Mutex
	ch, sa, sb := make(chan int), make(chan int), make(chan int)
	var gate sync.WaitGroup
	gate.Add(1)
	pr, pwr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	run := func(name string, f func()) {
		w.wg.Add(1)
		started := make(chan struct{})
		go func() {
			defer w.wg.Done()
			idMu.Lock()
			w.ids[name] = goid.Current()
			idMu.Unlock()
			close(started)
			f()
		}()
		<-started
	}
	run("chan", func() { blockChan(ch) })
	run("select", func() { blockSelect(sa, sb) })
	run("mutex", func() { blockMutex(&mu) })
	run("waitgroup", func() { blockWaitGroup(&gate) })
	run("io", func() { blockRead(pr) })
	run("sleep", func() { sleepLoop(&w.stop) })
	if withSpin {
		run("spin", func() { spin(&w.stop) })
	}
	// Let every goroutine reach its blocking point.
	for i := 0; i < 50; i++ {
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	w.done = func() {
		w.stop.Store(true)
		close(ch)
		close(sa)
		mu.Unlock()
		gate.Done()
		pwr.Close()
		w.wg.Wait()
		pr.Close()
	}
	return w
}

func (w *workload) Stop() { w.done() }
