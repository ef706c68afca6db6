package sampler

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/internal/goid"
	"github.com/gotachyon/profiler/tachyon"
)

// The running-time fidelity tests: for goroutines whose code the
// scheduler sees at biased moments, the functions of wall mode's running
// ticks must split as the CPU profiler's samples of the same run do. The
// test runs its own CPU profile first, so that the sampler shares it: the
// two see the very same CPU samples, and the splits agree to within the
// placement's rounding, not sampling noise.

// onCPUPattern is one goroutine's code, with the functions whose shares
// are compared.
type onCPUPattern struct {
	name  string
	funcs []string                  // functions to split by (the innermost of them in a stack)
	run   func(ctx context.Context) // the goroutine's code, until ctx is done
}

// sinkCPU keeps the burners' results, atomically: they run on several
// goroutines at once.
var sinkCPU atomic.Uint64

//go:noinline
func burnFor(n int) {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sinkCPU.Store(x)
}

//go:noinline
func yieldF() { burnFor(80_000) }

//go:noinline
func yieldG() { burnFor(20_000); runtime.Gosched() }

//go:noinline
func rawWork() { burnFor(20_000) }

//go:noinline
func jobA() { burnFor(400_000) }

//go:noinline
func jobB() { burnFor(200_000) }

//go:noinline
func tiny(x uint64) uint64 { return x*2862933555777941757 + 3037000493 }

//go:noinline
func tinyCaller(n int) {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = tiny(x)
		x ^= x >> 7
		x *= 0x9e3779b97f4a7c15
	}
	sinkCPU.Store(x)
}

var onCPUPatterns = []onCPUPattern{
	{name: "gosched", funcs: []string{"yieldF", "yieldG"}, run: func(ctx context.Context) {
		for ctx.Err() == nil {
			yieldF()
			yieldG()
		}
	}},
	{name: "raw-syscall", funcs: []string{"rawWork", "rawClock"}, run: func(ctx context.Context) {
		for ctx.Err() == nil {
			rawWork()
			rawClock()
		}
	}},
	{name: "chan-worker", funcs: []string{"jobA", "jobB"}, run: func(ctx context.Context) {
		jobs := make(chan int)
		go func() {
			pprof.SetGoroutineLabels(context.Background()) // not the worker's
			defer close(jobs)
			tick := time.NewTicker(time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					jobs <- i
				}
			}
		}()
		for j := range jobs {
			if j%2 == 0 {
				jobA()
			} else {
				jobB()
			}
		}
	}},
	{name: "tiny-calls", funcs: []string{"tiny", "tinyCaller"}, run: func(ctx context.Context) {
		for ctx.Err() == nil {
			tinyCaller(100_000)
		}
	}},
}

// TestRunningTicksFollowCPUSamples runs each pattern on its own goroutine
// for two seconds in wall mode, beside a CPU profile of the same run, and
// compares the goroutine's running ticks with the profile's samples of it:
// as many, and the same function shares within 3 points.
func TestRunningTicksFollowCPUSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("runs each pattern for seconds")
	}
	for _, pat := range onCPUPatterns {
		t.Run(pat.name, func(t *testing.T) {
			wall, prof, st := runPattern(t, pat, 2*time.Second)
			t.Logf("wall: %d running ticks %v; pprof: %d samples %v; %d ticks without CPU sample, %d CPU samples unplaced",
				wall.n, wall.shares(pat.funcs), prof.n, prof.shares(pat.funcs), st.NoCPUSample, st.CPUUnplaced)
			if prof.n < 20 {
				t.Fatalf("only %d CPU samples of the goroutine", prof.n)
			}
			if d := math.Abs(float64(wall.n-prof.n)) / float64(prof.n); d > 0.03 {
				t.Errorf("%d running ticks for %d CPU samples", wall.n, prof.n)
			}
			ws, ps := wall.shares(pat.funcs), prof.shares(pat.funcs)
			for _, fn := range append(pat.funcs, "other") {
				if d := math.Abs(ws[fn] - ps[fn]); d > 0.03 {
					t.Errorf("%s: %.1f%% of running ticks, %.1f%% of CPU samples", fn, 100*ws[fn], 100*ps[fn])
				}
			}
		})
	}
}

// split counts samples by the innermost of a pattern's functions in their
// stacks ("other" if none).
type split struct {
	n  int
	by map[string]int
}

func (s *split) add(funcs []string, names func(yield func(string) bool), w int) {
	if s.by == nil {
		s.by = make(map[string]int)
	}
	s.n += w
	for fn := range names {
		for _, f := range funcs {
			if strings.HasSuffix(fn, "."+f) {
				s.by[f] += w
				return
			}
		}
	}
	s.by["other"] += w
}

func (s *split) shares(funcs []string) map[string]float64 {
	out := make(map[string]float64)
	for _, f := range append(funcs, "other") {
		out[f] = float64(s.by[f]) / float64(max(s.n, 1))
	}
	return out
}

// runPattern runs pat for d under a CPU profile and the sampler, and
// returns the split of the goroutine's running ticks and of its CPU
// samples.
func runPattern(t *testing.T, pat onCPUPattern, d time.Duration) (wall, prof split, st Stats) {
	t.Helper()
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Fatal(err)
	}
	sink := newMemSink()
	s, err := Start(Config{Backend: Trace, Mode: Wall}, sink)
	if err != nil {
		pprof.StopCPUProfile()
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	ids := make(chan uint64, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pprof.Do(ctx, pprof.Labels("pattern", pat.name), func(ctx context.Context) {
			ids <- goid.Current()
			pat.run(ctx)
		})
	}()
	id := <-ids
	<-done
	st, err = s.Stop()
	pprof.StopCPUProfile()
	if err != nil {
		t.Fatal(err)
	}
	for _, smp := range sink.of(id) {
		if smp.status.State() != tachyon.Running {
			continue
		}
		wall.add(pat.funcs, func(yield func(string) bool) {
			for _, f := range smp.stack {
				if !yield(f.Func) {
					return
				}
			}
		}, 1)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, smp := range p.Sample {
		if len(smp.Label["pattern"]) == 0 || smp.Label["pattern"][0] != pat.name {
			continue
		}
		prof.add(pat.funcs, func(yield func(string) bool) {
			for _, loc := range smp.Location {
				for _, ln := range loc.Line {
					if !yield(ln.Function.Name) {
						return
					}
				}
			}
		}, int(smp.Value[0]))
	}
	if st.Backend != Trace {
		t.Fatalf("backend %v (%s)", st.Backend, st.Fallback)
	}
	return wall, prof, st
}

func (s split) String() string { return fmt.Sprint(s.n, s.by) }

// TestCPUTotalUnderContention runs four busy goroutines on this machine
// while another process burns a CPU, so that the goroutines hold their Ps
// far longer than their threads run: the wall profile's on-CPU time must be
// the CPU time the process used (rusage, user and system), within 10 %,
// not the time it held Ps. The rusage is read over the span the profile
// covers, from Start's return to the workers' end: Start's and Stop's own
// work (Stop parses the last generation) is the profiler's, which no
// profile shows; on a machine so busy that the workers get well under a
// CPU, it takes a visible part of the 10 %.
func TestCPUTotalUnderContention(t *testing.T) {
	if testing.Short() {
		t.Skip("burns CPU for seconds")
	}
	burner := exec.Command("sh", "-c", "while :; do :; done")
	if err := burner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { burner.Process.Kill(); burner.Wait() }()

	sink := newMemSink()
	s, err := Start(Config{Backend: Trace, Mode: Wall}, sink)
	if err != nil {
		t.Fatal(err)
	}
	before := rusageCPU(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for ctx.Err() == nil {
				burnFor(100_000)
			}
		}()
	}
	for range 4 {
		<-done
	}
	used := rusageCPU(t) - before
	st, err := s.Stop()
	if err != nil {
		t.Fatal(err)
	}
	var running, held int
	for _, smp := range sink.all() {
		switch {
		case smp.status.State() == tachyon.Running:
			running++
		case smp.status&tachyon.StatusHasGIL != 0:
			held++
		}
	}
	onCPU := time.Duration(running) * time.Second / time.Duration(DefaultRate)
	t.Logf("process CPU (rusage) %v; wall profile on CPU %v (%d ticks), %d ticks on a P without CPU sample (Stats: %d), %d CPU samples unplaced, %d CPU samples in all",
		used.Round(time.Millisecond), onCPU, running, held, st.NoCPUSample, st.CPUUnplaced, st.CPUSamples)
	if d := math.Abs(float64(onCPU-used)) / float64(used); d > 0.10 {
		t.Errorf("wall profile on CPU %v, the process used %v of CPU: %.0f%% apart, want within 10%%", onCPU, used, 100*d)
	}
}

// rusageCPU returns the user and system CPU time this process has used.
func rusageCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
