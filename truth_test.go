package profiler_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime/trace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// fileSample is a decoded sample with its frames' functions.
type fileSample struct {
	gid    uint64
	ts     uint64
	status tachyon.Status
	funcs  []string // innermost first
}

func (s fileSample) has(suffix string) bool {
	for _, f := range s.funcs {
		if strings.HasSuffix(f, suffix) {
			return true
		}
	}
	return false
}

// readSamples decodes every sample of the profile at path.
func readSamples(t *testing.T, path string) []fileSample {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []fileSample
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		fs := fileSample{gid: s.ThreadID, ts: s.Timestamp, status: s.Status}
		for _, fr := range it.Frames(nil) {
			fs.funcs = append(fs.funcs, fr.Func)
		}
		out = append(out, fs)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

//go:noinline
func handlerHash(d time.Duration) {
	var b [4096]byte
	for end := time.Now().Add(d); time.Now().Before(end); {
		sum := sha256.Sum256(b[:])
		copy(b[:], sum[:])
	}
}

// TestHandlerRunsWhereItComputes serves HTTP requests whose handler reads
// the request body, then hashes: the most common server pattern. The
// handler goroutines' running samples must be in the hash (≥ 90%), not in
// the read they woke from (≤ 5%), whether each request hashes for long
// (300 ms) or for less than the CPU profiler's period (5 ms), so that most
// requests get no CPU sample of their own.
func TestHandlerRunsWhereItComputes(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles seconds of requests")
	}
	for _, d := range []time.Duration{300 * time.Millisecond, 5 * time.Millisecond} {
		t.Run(d.String(), func(t *testing.T) { testHandler(t, d) })
	}
}

func testHandler(t *testing.T, hashFor time.Duration) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		handlerHash(hashFor)
		w.Write([]byte("ok"))
	})}
	go srv.Serve(ln)
	defer srv.Close()
	testutil.Retry(t, 2*time.Second, 3, func(d time.Duration) error {
		path := filepath.Join(t.TempDir(), "handler.bin")
		p := profiler.Start(profiler.WithPath(path), profiler.WithQuiet(true))
		for end := time.Now().Add(d); time.Now().Before(end); {
			resp, err := http.Post("http://"+ln.Addr().String(), "text/plain", bytes.NewReader(make([]byte, 1024)))
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		handlers := map[uint64]bool{}
		samples := readSamples(t, path)
		for _, s := range samples {
			if s.has(".handlerHash") {
				handlers[s.gid] = true
			}
		}
		var running, hash, read int
		for _, s := range samples {
			// In the handler: net/http's own work around it (parsing the
			// request, under -race much dearer) is its CPU time too.
			if !handlers[s.gid] || s.status != tachyon.StatusOnCPU|tachyon.StatusHasGIL || !s.has("testHandler.func1") {
				continue
			}
			running++
			switch {
			case s.has(".handlerHash"):
				hash++
			case s.has("syscall.read") || s.has("(*FD).Read"):
				read++
			}
		}
		t.Logf("%d running samples of %d handler goroutines in the handler: %d in the hash, %d in the read", running, len(handlers), hash, read)
		if running < 50 || hash*100 < running*90 || read*100 > running*5 {
			return fmt.Errorf("hash %d, read %d of %d running samples", hash, read, running)
		}
		return nil
	})
}

// TestEveryGoroutineEveryTick profiles goroutines blocked inside a trace
// region, inside a task, after a trace.Log, asleep between short wake-ups,
// and the goroutine that calls Start: each must have a sample at every tick
// of the profile, the first and the last included.
func TestEveryGoroutineEveryTick(t *testing.T) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	ids := map[string]uint64{"start caller": goid.Current()}
	spawn := spawner(&wg, ids)
	ctx := context.Background()
	spawn("in region", func() { trace.WithRegion(ctx, "wait", func() { <-stop }) })
	spawn("in task", func() {
		tctx, task := trace.NewTask(ctx, "job")
		defer task.End()
		trace.WithRegion(tctx, "step", func() { <-stop })
	})
	spawn("after log", func() { trace.Log(ctx, "k", "v"); <-stop })
	spawn("sleeper", func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	time.Sleep(10 * time.Millisecond)

	// A loaded machine (the race detector beside other tests) may leave
	// a short profile too few ticks to judge: it is profiled again,
	// longer. Every goroutine's presence is judged on the last profile.
	var ticks map[uint64]bool
	var have map[uint64]map[uint64]bool
	var first, last uint64
	testutil.Retry(t, 700*time.Millisecond, 3, func(d time.Duration) error {
		path := filepath.Join(t.TempDir(), "every.bin")
		p := profiler.Start(profiler.WithPath(path), profiler.WithQuiet(true))
		time.Sleep(d)
		if err := p.Stop(); err != nil {
			t.Fatal(err)
		}
		ticks, have = map[uint64]bool{}, map[uint64]map[uint64]bool{}
		first, last = ^uint64(0), 0
		for _, s := range readSamples(t, path) {
			ticks[s.ts] = true
			first, last = min(first, s.ts), max(last, s.ts)
			if have[s.gid] == nil {
				have[s.gid] = map[uint64]bool{}
			}
			have[s.gid][s.ts] = true
		}
		if len(ticks) < 50 {
			return fmt.Errorf("only %d ticks", len(ticks))
		}
		return nil
	})
	for name, id := range ids {
		got := have[id]
		if len(got)*100 < len(ticks)*99 || !got[first] || !got[last] {
			t.Errorf("%s (g%d): at %d of %d ticks; at the first %v, at the last %v", name, id, len(got), len(ticks), got[first], got[last])
		}
	}
}

// spawner returns a function that starts f on a goroutine of its own,
// counted in wg, and returns once ids[name] holds that goroutine's id.
func spawner(wg *sync.WaitGroup, ids map[string]uint64) func(name string, f func()) {
	var mu sync.Mutex
	return func(name string, f func()) {
		wg.Add(1)
		ready := make(chan struct{})
		go func() {
			defer wg.Done()
			mu.Lock()
			ids[name] = goid.Current()
			mu.Unlock()
			close(ready)
			f()
		}()
		<-ready
	}
}
