package demo

import (
	"context"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
)

// Shares of the CPU-bound goroutine's time.
const (
	ShareA = 0.6 // hotA
	ShareB = 0.4 // hotB
)

// SleepEvery is how long a sleeper sleeps between its wakeups.
const SleepEvery = 50 * time.Millisecond

// Config sizes the workload. The zero value means the defaults.
type Config struct {
	Goroutines int // idle pool size (default 100)
	Sleepers   int // sleeping goroutines (default 4)
}

// Result is what the workload measured about itself.
type Result struct {
	CPUA, CPUB time.Duration // thread CPU time spent in hotA and hotB
	// Slept is the time the sleepers asked to sleep, and Late what their
	// rounds took beyond it (waking late, waiting for a CPU, the loop
	// itself): at most this time were they not blocked in the sleep.
	Slept, Late time.Duration
}

// Split returns hotA's measured share of hotA+hotB.
func (r Result) Split() float64 {
	if r.CPUA+r.CPUB == 0 {
		return 0
	}
	return float64(r.CPUA) / float64(r.CPUA+r.CPUB)
}

// Run starts the workload, returns when ctx is done and every goroutine it
// started has exited.
func Run(ctx context.Context, cfg Config) (Result, error) {
	if cfg.Goroutines <= 0 {
		cfg.Goroutines = 100
	}
	if cfg.Sleepers <= 0 {
		cfg.Sleepers = 4
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, err
	}
	sr, sw, err := os.Pipe()
	if err != nil {
		pr.Close()
		pw.Close()
		return Result{}, err
	}
	sr.Fd() // puts the pipe in blocking mode: reads block in the syscall
	var (
		wg          sync.WaitGroup
		res         Result
		slept, late atomic.Int64
		ch          = make(chan int)
	)
	done := ctx.Done()
	wg.Add(5 + cfg.Sleepers + cfg.Goroutines)
	go func() { defer wg.Done(); res = spin(done) }()
	for range cfg.Sleepers {
		go func() {
			defer wg.Done()
			s, l := sleeper(done)
			slept.Add(int64(s))
			late.Add(int64(l))
		}()
	}
	go func() { defer wg.Done(); blockedOnChan(ch) }()
	go func() { defer wg.Done(); waitPipe(pr) }()
	go func() { defer wg.Done(); readSyscall(sr) }()
	for range cfg.Goroutines {
		go func() { defer wg.Done(); idleWorker(ch, done) }()
	}
	go func() { defer wg.Done(); <-done; close(ch); pw.Close(); sw.Close() }()
	wg.Wait()
	pr.Close()
	sr.Close()
	res.Slept, res.Late = time.Duration(slept.Load()), time.Duration(late.Load())
	return res, nil
}

// spin alternates hotA and hotB on a locked thread until done.
func spin(done <-chan struct{}) Result {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var r Result
	rng := rand.New(rand.NewPCG(1, 2))
	for {
		select {
		case <-done:
			return r
		default:
		}
		slice := 500*time.Microsecond + time.Duration(rng.Int64N(int64(time.Millisecond)))
		r.CPUA += hotA(time.Duration(float64(slice) * ShareA))
		r.CPUB += hotB(time.Duration(float64(slice) * ShareB))
	}
}

var sinkA, sinkB uint64

// hotA and hotB burn CPU for d of their thread's CPU time, reading the
// clock (a system call, about a microsecond) every 500 steps. The clock's
// share of a profile is its share of the CPU time, as runtime/pprof
// measures it: the demo's own instrumentation, visible but small.
//
//go:noinline
func hotA(d time.Duration) time.Duration {
	start := cputime.Thread()
	x := sinkA
	for {
		for i := 0; i < 500; i++ {
			x = x*6364136223846793005 + 1442695040888963407
		}
		if used := cputime.Thread() - start; used >= d {
			sinkA = x
			return used
		}
	}
}

//go:noinline
func hotB(d time.Duration) time.Duration {
	start := cputime.Thread()
	x := sinkB
	for {
		for i := 0; i < 500; i++ {
			x = x*2862933555777941757 + 3037000493
		}
		if used := cputime.Thread() - start; used >= d {
			sinkB = x
			return used
		}
	}
}

//go:noinline
func sleeper(done <-chan struct{}) (slept, late time.Duration) {
	for {
		start := time.Now()
		select {
		case <-done:
			return slept, late
		default:
		}
		time.Sleep(SleepEvery)
		slept += SleepEvery
		late += max(0, time.Since(start)-SleepEvery)
	}
}

//go:noinline
func blockedOnChan(ch chan int) {
	for range ch {
	}
}

//go:noinline
func waitPipe(r *os.File) {
	var b [1]byte
	r.Read(b[:]) // returns at EOF, when Run closes the write end
}

//go:noinline
func readSyscall(r *os.File) {
	var b [1]byte
	r.Read(b[:])
}

//go:noinline
func idleWorker(jobs <-chan int, done <-chan struct{}) {
	for {
		select {
		case _, ok := <-jobs:
			if !ok {
				return
			}
		case <-done:
			return
		}
	}
}
