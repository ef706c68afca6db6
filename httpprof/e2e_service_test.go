package httpprof_test

import (
	"context"
	"crypto/sha256"
	"io"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
)

// Shape of the end-to-end service: the CPU-bound route computes for
// cpuWork of its thread's CPU time; the slow route computes for slowWork,
// then waits for a downstream that answers after downstreamDelay.
const (
	cpuWork         = 2 * time.Millisecond
	slowWork        = time.Millisecond
	downstreamDelay = 20 * time.Millisecond
	cpuClients      = 1 // closed-loop clients of each route
	slowClients     = 4
	// rate gives the CPU route, one goroutine, enough samples in a few
	// seconds for a share within 3 points: 2,000 samples in 4 s put the
	// standard error of a share near 1 point.
	rate = 500
)

// truth is a route's own measurement of the requests it served within the
// measured window: wall time in the handler, CPU time there (its thread's,
// locked), and blocked time: from the downstream call to the arrival of
// its answer.
type truth struct {
	mu              sync.Mutex
	n               int
	wall, cpu, wait time.Duration
	// delay is the handler's thread's time on the kernel's run queues
	// (measured on a locked thread only): the Go scheduler ran the
	// handler, the system ran other threads.
	delay time.Duration
	// slices is how many times the thread was given a CPU (locked thread
	// only).
	slices int64
}

// reset forgets the requests measured.
func (tr *truth) reset() {
	tr.mu.Lock()
	tr.n, tr.wall, tr.cpu, tr.wait, tr.delay, tr.slices = 0, 0, 0, 0, 0, 0
	tr.mu.Unlock()
}

// totals returns the requests measured and their times.
func (tr *truth) totals() (n int, wall, cpu, wait, delay time.Duration, slices int64) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.n, tr.wall, tr.cpu, tr.wait, tr.delay, tr.slices
}

func (tr *truth) add(wall, cpu, wait, delay time.Duration, slices int64) {
	tr.mu.Lock()
	tr.n++
	tr.delay += delay
	tr.slices += slices
	tr.wall += wall
	tr.cpu += cpu
	tr.wait += wait
	tr.mu.Unlock()
}

// service is the two routes and the measured window.
type service struct {
	client   *http.Client // to the downstream
	url      string       // the downstream's
	from     atomic.Int64 // the window's start, Unix ns; 0 when not measuring
	cpuT     truth
	slowT    truth
	hashSink atomic.Uint64
}

// measured reports whether a request that started at t0 and ends now is
// within the window.
func (s *service) measured(t0 time.Time) bool {
	from := s.from.Load()
	return from != 0 && t0.UnixNano() >= from
}

// spin computes until its thread has used d of CPU time, and returns the
// CPU time it used. The goroutine is locked to its thread meanwhile, so
// that the thread's CPU clock is the goroutine's.
//
//go:noinline
func (s *service) spin(d time.Duration) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var b [sha256.Size]byte
	c0 := cputime.Thread()
	for end := c0 + d; cputime.Thread() < end; {
		for range 20 {
			b = sha256.Sum256(b[:])
		}
	}
	s.hashSink.Add(uint64(b[0]))
	return cputime.Thread() - c0
}

// cpu is the CPU-bound route.
//
//go:noinline
func (s *service) cpu(w http.ResponseWriter, r *http.Request) {
	s.spin(cpuWork)
	io.WriteString(w, "ok")
}

// measureCPU serves each request with h and measures it: its wall time
// and its thread's CPU time, the goroutine locked to its thread. Wrapped
// by Labels, it measures all the route's labelled time but the label
// events' own: the request's routing, its context and the handler.
func (s *service) measureCPU(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		t0, c0, d0, s0 := time.Now(), cputime.Thread(), cputime.RunDelay(), cputime.Slices()
		h.ServeHTTP(w, r)
		if s.measured(t0) {
			s.cpuT.add(time.Since(t0), cputime.Thread()-c0, 0, cputime.RunDelay()-d0, cputime.Slices()-s0)
		}
	})
}

// slow is the route that waits on a slow downstream. Its blocked time is
// from the call to the moment the downstream's answer reaches the
// transport's reader, which then wakes the handler. The handler is not
// locked to its thread in the call: the transport wakes it once before
// the answer, when the request is written, and a locked goroutine waits
// for its own thread to be scheduled, where another runs at once. Its CPU
// time in the call (building the request, reading two bytes of body) is
// not measured: it counts as blocked, and is a small part of the points
// the comparison allows.
//
//go:noinline
func (s *service) slow(w http.ResponseWriter, r *http.Request) {
	t0 := time.Now()
	cpu := s.spin(slowWork)
	w0 := time.Now()
	answered, err := s.callDownstream()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if s.measured(t0) {
		s.slowT.add(time.Since(t0), cpu, answered.Sub(w0), 0, 0)
	}
	io.WriteString(w, "ok")
}

// callDownstream calls the downstream and returns when its answer's first
// byte reached the transport (httptrace's GotFirstResponseByte, called by
// the transport's reader as it wakes the caller).
//
//go:noinline
func (s *service) callDownstream() (answered time.Time, err error) {
	var first atomic.Int64
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		GotFirstResponseByte: func() { first.Store(time.Now().UnixNano()) },
	})
	req, err := http.NewRequestWithContext(ctx, "GET", s.url, nil)
	if err != nil {
		return time.Time{}, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return time.Time{}, err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, first.Load()), nil
}
