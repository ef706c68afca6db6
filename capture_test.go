package profiler_test

import (
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/tachyon"
)

// slowRequest is one slow request of TestCaptureSlowHandler.
type slowRequest struct {
	g          uint64 // its goroutine
	start, end time.Time
	trigger    time.Time // when it called Capture
	err        error     // Capture's answer
}

// TestCaptureSlowHandler serves a load in which every 500th request
// sleeps 2 s and calls Capture("slow") once it has run 1 s, as a deadline
// middleware would, and checks that the captures are rate limited (one
// per period at most, the others counted), and that each holds the
// request that took it blocked in [sleep] for its whole 2 s.
func TestCaptureSlowHandler(t *testing.T) {
	const period = 2 * time.Second
	dir := t.TempDir()
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(20*time.Second, 0), profiler.WithCaptureDir(dir),
		profiler.WithCapturePeriod(period), profiler.WithCaptureSpan(1500*time.Millisecond, 1500*time.Millisecond), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	var (
		n    atomic.Int64
		mu   sync.Mutex
		slow []*slowRequest
	)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1)%500 != 0 {
			io.WriteString(w, "ok")
			return
		}
		req := &slowRequest{g: goid.Current(), start: time.Now()}
		called := make(chan struct{})
		timer := time.AfterFunc(time.Second, func() {
			req.trigger = time.Now()
			req.err = profiler.Capture("slow")
			close(called)
		})
		time.Sleep(2 * time.Second)
		req.end = time.Now()
		if !timer.Stop() {
			<-called
		}
		mu.Lock()
		slow = append(slow, req)
		mu.Unlock()
		io.WriteString(w, "slow")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: handler}
	go srv.Serve(ln)
	defer srv.Close()
	// The load: 8 clients, for loadFor (bounded in count too).
	const loadFor = 6 * time.Second
	begin := time.Now()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 10 * time.Second}
			for i := 0; i < 200_000 && time.Since(begin) < loadFor; i++ {
				resp, err := c.Get("http://" + ln.Addr().String() + "/")
				if err != nil {
					t.Error(err)
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	loaded := time.Since(begin)
	if err := p.Stop(); err != nil { // writes the captures waiting for their end
		t.Fatal(err)
	}
	st := p.CaptureStats()
	var taken, limited []*slowRequest
	for _, r := range slow {
		switch {
		case r.err == nil:
			taken = append(taken, r)
		case errors.Is(r.err, profiler.ErrCaptureLimited):
			limited = append(limited, r)
		default:
			t.Errorf("Capture: %v", r.err)
		}
	}
	t.Logf("%d requests in %v, %d slow: %d captures taken, %d limited; stats %+v", n.Load(), loaded, len(slow), len(taken), len(limited), st)
	if len(slow) < 3 {
		t.Fatalf("only %d slow requests: the load did not run", len(slow))
	}
	if st.Taken != len(taken) || st.Limited != len(limited) || st.Failed != 0 {
		t.Errorf("stats %+v: want %d taken, %d limited, none failed", st, len(taken), len(limited))
	}
	if most := int(loaded/period) + 1; len(taken) < 1 || len(taken) > most {
		t.Errorf("%d captures in %v, want 1 to %d (one per %v)", len(taken), loaded, most, period)
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i].trigger.Before(taken[j].trigger) })
	for i := 1; i < len(taken); i++ {
		if d := taken[i].trigger.Sub(taken[i-1].trigger); d < period {
			t.Errorf("two captures %v apart, less than the period %v", d, period)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "capture-*-slow-*.tachyon"))
	sort.Strings(files) // names sort by time
	if len(files) != len(taken) {
		t.Fatalf("%d capture files (%q), want %d", len(files), files, len(taken))
	}
	for i, path := range files {
		checkCaptured(t, path, taken[i], slow)
	}
}

// checkCaptured checks that the capture at path holds r's goroutine in
// [sleep] over its whole sleep, within 100 ms of its ends. A connection's
// goroutine may serve two slow requests in a row, whose sleeps are then
// one run of [sleep]: the run must then start and end within 100 ms of
// the sleeps of the slow requests it served (or the capture's ends).
func checkCaptured(t *testing.T, path string, r *slowRequest, slow []*slowRequest) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The name has Capture's own clock, read a little after the test's
	// (r.trigger), maybe past a millisecond boundary.
	const layout = "20060102T150405.000"
	base := filepath.Base(path)
	rest, _ := strings.CutPrefix(base, "capture-")
	named, err := time.Parse(layout, rest[:min(len(rest), len(layout))])
	if d := named.Sub(r.trigger.UTC().Truncate(time.Millisecond)); err != nil || d < 0 || d > 100*time.Millisecond {
		t.Errorf("%s: named for another time than its call at %s", base, r.trigger.UTC().Format(layout))
	}
	f, samples := samplesOf(t, data)
	// The goroutine's samples in [sleep] without another sample between,
	// around the call: the same connection's goroutine may sleep in the
	// requests just before and after too.
	var first, last uint64
	n := 0
	trig := uint64(r.trigger.UnixMicro())
	for _, s := range samples {
		if s.ThreadID != r.g || len(s.Stack) == 0 {
			continue
		}
		if reason, ok := tachyon.WaitReason(f.Frame(s.Stack[0])); !ok || reason != "sleep" {
			if s.Timestamp > trig && n > 0 {
				break
			}
			n = 0
			continue
		}
		if s.Status.State() != tachyon.Blocked {
			t.Errorf("%s: goroutine %d in [sleep] but %v", filepath.Base(path), r.g, s.Status.State())
		}
		if n == 0 {
			first = s.Timestamp
		}
		last = s.Timestamp
		n++
	}
	if n == 0 || first > trig || last < trig {
		t.Errorf("%s: no sample of goroutine %d in [sleep] at its call %v", filepath.Base(path), r.g, r.trigger)
		return
	}
	from, to := time.UnixMicro(int64(first)), time.UnixMicro(int64(last))
	t.Logf("%s: goroutine %d in [sleep] from %v to %v after its start (slept %v), %d samples",
		filepath.Base(path), r.g, from.Sub(r.start), to.Sub(r.start), r.end.Sub(r.start), n)
	starts := []time.Time{time.UnixMicro(int64(f.Header.StartTime))}
	ends := []time.Time{r.trigger.Add(1500 * time.Millisecond)}
	for _, o := range slow {
		if o.g == r.g {
			starts, ends = append(starts, o.start), append(ends, o.end)
		}
	}
	near := func(x time.Time, ts []time.Time) bool {
		for _, y := range ts {
			if x.Sub(y).Abs() <= 100*time.Millisecond {
				return true
			}
		}
		return false
	}
	if !near(from, starts) || !near(to, ends) || from.After(r.start.Add(100*time.Millisecond)) || to.Before(r.end.Add(-100*time.Millisecond)) {
		t.Errorf("%s: goroutine %d in [sleep] from %v to %v, but it slept from %v to %v", filepath.Base(path), r.g, from, to, r.start, r.end)
	}
}
