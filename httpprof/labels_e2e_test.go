package httpprof_test

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/httpprof"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

var loadFor = flag.Duration("load", 4*time.Second,
	"how long TestLabelsEndToEnd measures its service under load (the issue's acceptance run: 20s)")

// routeSamples are a route's samples in the profile.
type routeSamples struct {
	states  [tachyon.NumStates]int
	reasons map[string]int // blocked samples by wait reason
	n       int
}

// TestLabelsEndToEnd is the acceptance: a net/http service with a
// CPU-bound route and a route that waits on a slow downstream, wrapped in
// Labels, under load while the profiler runs in wall mode. The profile's
// labels must give each route's on-CPU and blocked shares of its time
// within 3 percentage points of the service's own measurement (the
// thread CPU clock and the wall clock in the handlers), the slow route's
// blocked time must be mostly in its wait reason, and no sample of one
// route may hold the other route's handler, nor a handler's sample be
// without its route.
func TestLabelsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles a service under load for seconds")
	}
	downstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(downstreamDelay)
		io.WriteString(w, "ok")
	}))
	defer downstream.Close()
	svc := &service{url: downstream.URL, client: &http.Client{Transport: &http.Transport{
		MaxConnsPerHost: slowClients, MaxIdleConnsPerHost: slowClients}}}
	// The downstream connections are dialed here, unlabelled: the
	// transport's goroutines of a connection dialed inside a request
	// would carry that request's labels for the connection's life, time
	// the handlers do not measure.
	var warm sync.WaitGroup
	for range slowClients {
		warm.Go(func() {
			if _, err := svc.callDownstream(); err != nil {
				t.Error(err)
			}
		})
	}
	warm.Wait()

	// Labels wraps each route behind the mux (it takes the route from
	// the mux's pattern), so that the CPU route's truth, measured inside
	// it, is the route's labelled time: measured in the handler alone it
	// missed the request's context and the mux's routing, under the race
	// detector a tenth of a millisecond of CPU a request.
	mux := http.NewServeMux()
	mux.Handle("GET /cpu", httpprof.Labels(svc.measureCPU(http.HandlerFunc(svc.cpu))))
	mux.Handle("GET /slow/{id}", httpprof.Labels(http.HandlerFunc(svc.slow)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	stop := make(chan struct{})
	var clients sync.WaitGroup
	load := func(path string) {
		c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := c.Get(srv.URL + fmt.Sprintf(path, i))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	for range cpuClients {
		clients.Go(func() { load("/cpu?n=%d") })
	}
	for range slowClients {
		clients.Go(func() { load("/slow/%d") })
	}
	defer func() { close(stop); clients.Wait() }()

	testutil.Retry(t, *loadFor, 2, func(d time.Duration) error {
		svc.cpuT.reset()
		svc.slowT.reset()
		path := filepath.Join(t.TempDir(), "service.bin")
		p := profiler.Start(profiler.WithPath(path), profiler.WithBackend(sampler.Trace),
			profiler.WithRate(rate), profiler.WithQuiet(true))
		if err := p.Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		from := time.Now()
		svc.from.Store(from.UnixNano())
		time.Sleep(d)
		svc.from.Store(0)
		to := time.Now()
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		return checkRoutes(t, path, svc, from, to)
	})
}

// checkRoutes reads the samples of the profile at path taken between from
// and to, the window the service measured (a request in flight when the
// profile starts has no labels until its next profiler.Do), and compares
// each route's shares with the service's measurement: a hard failure for
// samples that mix the routes or lose them, an error (for a longer run)
// for shares out of bounds.
func checkRoutes(t *testing.T, path string, svc *service, from, to time.Time) error {
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	routes := map[string]*routeSamples{"/cpu": {reasons: map[string]int{}}, "/slow/{id}": {reasons: map[string]int{}}}
	handlerOf := map[string]string{"/cpu": ".(*service).cpu", "/slow/{id}": ".(*service).slow"}
	var mixed, unlabelled int
	type span struct {
		n           int
		first, last uint64
	}
	bad := map[uint64]*span{} // per goroutine, its samples without route
	labelledOf := map[uint64]int{}
	it := f.Samples()
	defer it.Close()
	var frames []tachyon.Frame
	for it.Next() {
		if ts := int64(it.Sample().Timestamp); ts < from.UnixMicro() || ts > to.UnixMicro() {
			continue
		}
		frames = it.Frames(frames[:0])
		code := tachyon.SplitLabels(len(frames), func(i int) bool { return tachyon.IsLabel(frames[i]) })
		route := ""
		for _, fr := range frames[code:] {
			if l, _ := tachyon.LabelOf(fr); l.Key == httpprof.LabelRoute {
				route = l.Value
			}
		}
		in := map[string]bool{}
		for r, fn := range handlerOf {
			in[r] = hasFrame(frames[:code], fn)
		}
		rs := routes[route]
		switch {
		case rs == nil && (in["/cpu"] || in["/slow/{id}"]):
			sm := it.Sample()
			sp := bad[sm.ThreadID]
			if sp == nil {
				sp = &span{first: sm.Timestamp}
				bad[sm.ThreadID] = sp
			}
			sp.n++
			sp.last = sm.Timestamp
			if unlabelled++; unlabelled <= 5 {
				sm := it.Sample()
				fns := make([]string, len(frames))
				for i, fr := range frames {
					fns[i] = fr.Func
				}
				t.Logf("a handler's sample without its route: goroutine %d at %d µs, %v, stack %s",
					sm.ThreadID, sm.Timestamp, sm.Status.State(), strings.Join(fns, " < "))
			}
			continue
		case rs == nil:
			continue
		}
		if in["/cpu"] || in["/slow/{id}"] {
			labelledOf[it.Sample().ThreadID]++
		}
		for r, ok := range in {
			if ok && r != route {
				mixed++
			}
		}
		st := it.Sample().Status.State()
		rs.states[st]++
		rs.n++
		if st == tachyon.Blocked && code > 0 {
			reason, _ := tachyon.WaitReason(frames[0])
			rs.reasons[reason]++
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if mixed > 0 || unlabelled > 0 {
		t.Errorf("%d samples hold the other route's handler, %d samples of a handler have no route", mixed, unlabelled)
		for id, sp := range bad {
			t.Logf("goroutine %d: %d samples without route from %.3f s to %.3f s of the window; %d with", id, sp.n,
				float64(int64(sp.first)-from.UnixMicro())/1e6, float64(int64(sp.last)-from.UnixMicro())/1e6, labelledOf[id])
		}
	}
	var errs []error
	for _, c := range []struct {
		route string
		tr    *truth
	}{{"/cpu", &svc.cpuT}, {"/slow/{id}", &svc.slowT}} {
		rs := routes[c.route]
		n, wall, cpu, wait, delay, slices := c.tr.totals()
		if rs.n < 100 || n == 0 {
			errs = append(errs, fmt.Errorf("%s: %d samples, %d requests measured", c.route, rs.n, n))
			continue
		}
		// Running is the Go scheduler's: a running goroutine's thread is
		// on CPU or, while the system runs other threads, on the kernel's
		// run queue. The measured on-CPU share is from the thread's CPU
		// time, less the scheduler's work on it at each switch
		// (switchMargin), up to that plus its run-queue time (a part of
		// which is a woken thread's wait to start the goroutine, which the
		// trace counts runnable).
		profCPU := float64(rs.states[tachyon.Running]) / float64(rs.n)
		profBlocked := float64(rs.states[tachyon.Blocked]) / float64(rs.n)
		trueCPU := float64(cpu) / float64(wall)
		trueRun := float64(cpu+delay) / float64(wall)
		trueBlocked := float64(wait) / float64(wall)
		t.Logf("%s: %d requests, %v in the handlers; %d samples %v; on CPU %.1f%% (measured %.1f%%, %.1f%% with the run queue; %d slices, %.0f µs a slice of the gap), blocked %.1f%% (measured %.1f%%); blocked by reason %v",
			c.route, n, wall.Round(time.Millisecond), rs.n, stateCounts(rs.states),
			100*profCPU, 100*trueCPU, 100*trueRun, slices, (trueCPU-profCPU)*wall.Seconds()*1e6/float64(max(slices, 1)), 100*profBlocked, 100*trueBlocked, rs.reasons)
		if profCPU < trueCPU-switchMargin(slices, wall)-0.03 || profCPU > trueRun+0.03 {
			errs = append(errs, fmt.Errorf("%s: on CPU %.1f%% of the route's samples, measured %.1f%% to %.1f%%", c.route, 100*profCPU, 100*trueCPU, 100*trueRun))
		}
		if d := math.Abs(profBlocked - trueBlocked); d > 0.03 {
			errs = append(errs, fmt.Errorf("%s: blocked %.1f%% of the route's samples, measured %.1f%%", c.route, 100*profBlocked, 100*trueBlocked))
		}
	}
	slow := routes["/slow/{id}"]
	if blocked := slow.states[tachyon.Blocked]; blocked > 0 && slow.reasons["select"] < blocked*9/10 {
		errs = append(errs, fmt.Errorf("the slow route's blocked samples by reason %v: want 90%% in the client's select", slow.reasons))
	}
	return errors.Join(errs...)
}

func hasFrame(frames []tachyon.Frame, suffix string) bool {
	for _, fr := range frames {
		if strings.HasSuffix(fr.Func, suffix) {
			return true
		}
	}
	return false
}

func stateCounts(c [tachyon.NumStates]int) string {
	var parts []string
	for s, n := range c {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%v %d", tachyon.State(s), n))
		}
	}
	return strings.Join(parts, ", ")
}

// switchMargin is the share of wall the CPU time of a locked handler's
// thread may hold outside the goroutine's running time: at each of its
// slices on a CPU the thread runs the scheduler (the preemption's signal,
// handing off its P, sleeping, waking), 13-25 µs of its CPU time outside
// the goroutine's work measured beside two CPU burners, 50 µs allowed;
// under the race detector each switch also runs its runtime's
// synchronisation, which beside two burners put the route's running
// share up to 7.6 points under its thread's CPU share, so 5 more points.
func switchMargin(slices int64, wall time.Duration) float64 {
	m := float64(slices) * 50e-6 / max(wall.Seconds(), 1e-9)
	if testutil.Race {
		m += 0.05
	}
	return m
}
