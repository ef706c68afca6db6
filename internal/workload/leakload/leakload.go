package leakload

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/tachyon"
)

// Load is a running workload.
type Load struct {
	// LeakSite and WorkerSite are where the load starts its leaking
	// goroutines and its workers.
	LeakSite, WorkerSite string
	leaked               atomic.Int64
	jobs                 atomic.Int64
	stop                 chan struct{}
	wg                   sync.WaitGroup
}

// Start starts workers healthy workers, each woken about every wake by
// a job, until Stop.
func Start(workers int, wake time.Duration) *Load {
	l := &Load{stop: make(chan struct{}), LeakSite: leakSite()}
	jobs := make(chan int)
	l.WorkerSite = startWorkers(l, workers, jobs)
	l.wg.Add(1)
	go l.dispatch(jobs, workers, wake)
	return l
}

// Leak leaks perSec goroutines a second until Stop.
func (l *Load) Leak(perSec int) {
	l.wg.Add(1)
	go l.leakLoop(perSec)
}

// Stop stops the dispatcher and the leaks and waits for the workers; the
// leaked goroutines stay blocked. It returns how many leaked and how many
// jobs the workers did.
func (l *Load) Stop() (leaked, jobs int64) {
	close(l.stop)
	l.wg.Wait()
	return l.leaked.Load(), l.jobs.Load()
}

// Leaked returns how many goroutines have leaked so far.
func (l *Load) Leaked() int64 { return l.leaked.Load() }

// site returns the creation site of a go statement on the line after the
// caller's.
func site() string {
	pc, file, line, _ := runtime.Caller(1)
	return tachyon.CreationSite(runtime.FuncForPC(pc).Name(), file, line+1)
}

// startWorkers starts n workers that take jobs until jobs is closed, and
// returns their creation site.
//
//go:noinline
func startWorkers(l *Load, n int, jobs chan int) string {
	var at string
	for range n {
		l.wg.Add(1)
		at = site()
		go worker(l, jobs)
	}
	return at
}

// worker does each job it is given: a little work, then back to wait.
//
//go:noinline
func worker(l *Load, jobs chan int) {
	defer l.wg.Done()
	x := 0
	for j := range jobs {
		for i := range 200 {
			x += i * j
		}
		l.jobs.Add(1)
	}
	sinkInt.Add(int64(x))
}

var sinkInt atomic.Int64

// dispatch hands out jobs so that each of n workers wakes about every
// wake, until stop; then it closes jobs.
func (l *Load) dispatch(jobs chan int, n int, wake time.Duration) {
	defer l.wg.Done()
	defer close(jobs)
	const tick = 10 * time.Millisecond
	per := max(n*int(tick)/int(wake), 1) // jobs a tick
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		for i := range per {
			select {
			case jobs <- i:
			case <-l.stop:
				return
			}
		}
	}
}

// leakSite returns where leakOne starts its goroutines; the goroutine
// it starts to learn it ends at once.
func leakSite() string { return leakOne(nil) }

// leakOne starts a goroutine that sends on a channel nobody else holds,
// and so blocks for ever once it has told ready it runs, and returns its
// creation site. With ready nil, the goroutine ends at once.
//
//go:noinline
func leakOne(ready chan struct{}) string {
	at := site()
	go send(make(chan int), ready)
	return at
}

// send tells ready it runs, then blocks sending on ch; with ready nil it
// returns.
//
//go:noinline
func send(ch chan int, ready chan struct{}) {
	if ready == nil {
		return
	}
	ready <- struct{}{}
	ch <- 1
}

// leakLoop leaks perSec goroutines a second, evenly, until stop.
func (l *Load) leakLoop(perSec int) {
	defer l.wg.Done()
	every := time.Second / time.Duration(perSec)
	start := time.Now()
	ready := make(chan struct{})
	for n := int64(0); ; n++ {
		if d := time.Until(start.Add(time.Duration(n) * every)); d > 0 {
			select {
			case <-l.stop:
				return
			case <-time.After(d):
			}
		}
		select {
		case <-l.stop:
			return
		default:
		}
		leakOne(ready)
		<-ready
		l.leaked.Add(1)
	}
}
