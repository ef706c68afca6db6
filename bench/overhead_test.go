package bench

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	rtrace "runtime/trace"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/felixge/fgprof"
	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/cputime"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/sampler"
)

var (
	window  = flag.Duration("window", time.Second, "length of each measured window")
	workers = flag.Int("workers", 0, "CPU-bound workers (ping-pong pairs); 0 means GOMAXPROCS")
	hopSpin = flag.Int("hopspin", 5000, "ping-pong: spin iterations per hop (5000: about 400k goroutine switches/s per core)")
	backend = flag.String("backend", "auto", "tachyon's sampler backend: auto, trace or snapshot")
	idleN   = flag.Int("idle", 10000, "BenchmarkIdle: parked goroutines")
	settle  = flag.Duration("settle", 7*time.Second, "BenchmarkIdle: time between Start and the measured window (the sampler settles each goroutine every fourth generation, so the first five carry every goroutine's first stack)")
	wallCPU = flag.Bool("wallcpu", true, "tachyon: run the CPU profiler alongside wall mode (WithWallCPUSamples; -wallcpu=false leaves it off)")
)

func nWorkers() int {
	if *workers > 0 {
		return *workers
	}
	return runtime.GOMAXPROCS(0)
}

// counter is one worker's count of units of work, padded to a cache line
// to avoid false sharing.
type counter struct {
	n atomic.Uint64
	// last is the worker's state after its last unit, stored so that the
	// work stays live: the compiler cannot drop a loop whose result
	// reaches memory.
	last uint64
	_    [48]byte
}

// mix runs rounds steps of a 64-bit linear congruential generator from x
// and returns the last state: the loads' CPU work. Each step needs the
// last one's result, so the rounds run one after the other; the callers
// keep the result live (stored or sent), so they are not folded away.
func mix(x uint64, rounds int) uint64 {
	for range rounds {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

// load is a running workload: ops counts its work.
type load struct {
	ops  []counter
	stop func()
}

func (l *load) total() uint64 {
	var t uint64
	for i := range l.ops {
		t += l.ops[i].n.Load()
	}
	return t
}

// cpuLoad starts GOMAXPROCS spinning workers and n parked goroutines.
func cpuLoad(n int) *load {
	ctx, cancel := context.WithCancel(context.Background())
	release := benchload.Park(n)
	var wg sync.WaitGroup
	l := &load{ops: make([]counter, nWorkers())}
	for i := range l.ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &l.ops[i]
			c.last = uint64(i)
			for ctx.Err() == nil {
				c.last = mix(c.last, 10000)
				c.n.Add(1)
			}
		}()
	}
	l.stop = func() { cancel(); release(); wg.Wait() }
	return l
}

// pingPong starts GOMAXPROCS pairs bouncing a token, spinning a little per hop.
func pingPong() *load {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	l := &load{ops: make([]counter, nWorkers())}
	for i := range l.ops {
		a, b := make(chan uint64), make(chan uint64)
		wg.Add(2)
		go func() {
			defer wg.Done()
			defer close(a)
			for x := uint64(0); ctx.Err() == nil; {
				a <- mix(x, *hopSpin)
				x = <-b
				l.ops[i].n.Add(2)
			}
		}()
		go func() {
			defer wg.Done()
			for x := range a {
				b <- mix(x, *hopSpin)
			}
		}()
	}
	l.stop = func() { cancel(); wg.Wait() }
	return l
}

// probe measures the lateness of a goroutine sleeping 1 ms in a loop.
type probe struct {
	mu   sync.Mutex
	late []time.Duration
	stop chan struct{}
	done chan struct{}
}

func startProbe() *probe {
	p := &probe{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for {
			select {
			case <-p.stop:
				return
			default:
			}
			t := time.Now()
			time.Sleep(time.Millisecond)
			late := time.Since(t) - time.Millisecond
			p.mu.Lock()
			p.late = append(p.late, late)
			p.mu.Unlock()
		}
	}()
	return p
}

// take returns the latenesses measured since the last call and resets.
func (p *probe) take() []time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.late
	p.late = nil
	return l
}

// p99 returns the 99th percentile of l, sorting it.
func p99(l []time.Duration) time.Duration {
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return l[len(l)*99/100]
}

// peer is a profiler under test: start returns a stop function that returns
// the achieved sampling rate.
type peer struct {
	name  string
	start func(b *testing.B) func() float64
}

var peers = []peer{
	{"tachyon", func(b *testing.B) func() float64 {
		be, err := sampler.ParseBackend(*backend)
		if err != nil {
			b.Fatal(err)
		}
		p := profiler.Start(profiler.WithPath(filepath.Join(b.TempDir(), "p.bin")),
			profiler.WithMode(sampler.Wall), profiler.WithRate(100), profiler.WithQuiet(true),
			profiler.WithBackend(be), profiler.WithWallCPUSamples(*wallCPU))
		if err := p.Err(); err != nil {
			b.Fatal(err)
		}
		return func() float64 {
			if err := p.Stop(); err != nil {
				b.Fatal(err)
			}
			return p.Stats().AchievedHz
		}
	}},
	// The floor of the trace backend in wall mode: the runtime writing the
	// execution trace, read and thrown away unparsed.
	{"trace-floor", traceFloor(false)},
	// The same with the CPU profiler alongside: the floor of CPU mode, and of
	// wall mode with WithWallCPUSamples.
	{"trace+cpu-floor", traceFloor(true)},
	{"fgprof", func(b *testing.B) func() float64 {
		var buf bytes.Buffer
		t0 := time.Now()
		stop := fgprof.Start(&buf, fgprof.FormatPprof)
		return func() float64 {
			if err := stop(); err != nil {
				b.Fatal(err)
			}
			secs := time.Since(t0).Seconds()
			prof, err := profile.Parse(&buf)
			if err != nil {
				b.Fatal(err)
			}
			var n int64
			for _, s := range prof.Sample {
				n += s.Value[0]
			}
			return float64(n) / float64(runtime.NumGoroutine()) / secs
		}
	}},
}

// traceFloor starts the runtime tracer (and, if cpu, the CPU profiler)
// into io.Discard: not a profiler, the cost no trace parser can remove.
func traceFloor(cpu bool) func(b *testing.B) func() float64 {
	return func(b *testing.B) func() float64 {
		if err := rtrace.Start(io.Discard); err != nil {
			b.Fatal(err)
		}
		cpuOn := cpu && pprof.StartCPUProfile(io.Discard) == nil
		return func() float64 {
			if cpuOn {
				pprof.StopCPUProfile()
			}
			rtrace.Stop()
			return 0
		}
	}
}

type windowResult struct {
	rate float64 // ops per CPU-second
	ops  float64 // ops per wall second
	late []time.Duration
	hz   float64
}

func measure(l *load, pr *probe, run func()) windowResult {
	pr.take() // reset
	ops0, cpu0, t0 := l.total(), cputime.Process(), time.Now()
	run()
	ops, cpu := l.total()-ops0, cputime.Process()-cpu0
	return windowResult{rate: float64(ops) / cpu.Seconds(), ops: float64(ops) / time.Since(t0).Seconds(), late: pr.take()}
}

func benchOverhead(b *testing.B, newLoad func() *load, pe peer) {
	l := newLoad()
	defer l.stop()
	pr := startProbe()
	defer func() { close(pr.stop); <-pr.done }()
	time.Sleep(200 * time.Millisecond) // let the load settle
	var lost, hz, baseOps []float64
	var late, baseLate []time.Duration
	b.ResetTimer()
	for i := range b.N {
		base := func() windowResult { return measure(l, pr, func() { time.Sleep(*window) }) }
		prof := func() windowResult {
			var achieved float64
			r := measure(l, pr, func() {
				stop := pe.start(b)
				time.Sleep(*window)
				achieved = stop()
			})
			r.hz = achieved
			return r
		}
		var rb, rp windowResult
		if i%2 == 0 {
			rb, rp = base(), prof()
		} else {
			rp, rb = prof(), base()
		}
		lost = append(lost, 100*(1-rp.rate/rb.rate))
		hz = append(hz, rp.hz)
		late = append(late, rp.late...)
		baseLate = append(baseLate, rb.late...)
		baseOps = append(baseOps, rb.ops)
	}
	b.StopTimer()
	b.ReportMetric(benchload.Median(lost), "lost%")
	b.ReportMetric(benchload.Median(hz), "Hz")
	b.ReportMetric(float64(p99(late).Microseconds()), "p99late-us")
	b.ReportMetric(float64(p99(baseLate).Microseconds()), "base-p99late-us")
	b.ReportMetric(benchload.Median(baseOps), "base-ops/s")
	b.ReportMetric(0, "ns/op")
}

// namedLoad is a load of the benchmarks, by its sub-benchmark name.
type namedLoad struct {
	name string
	new  func() *load
}

// cpuLoads are the CPU-bound workers with 100, 1k and 10k parked goroutines.
var cpuLoads = []namedLoad{
	{"cpu-100", func() *load { return cpuLoad(100) }},
	{"cpu-1k", func() *load { return cpuLoad(1000) }},
	{"cpu-10k", func() *load { return cpuLoad(10000) }},
}

// BenchmarkOverheadFloor measures tachyon against its floor side by side:
// each iteration runs a window unprofiled, one under trace+cpu-floor and one
// under tachyon, in rotating order, on one load. Besides each one's lost%
// and p99 lateness it reports above-floor-pp, the median over iterations of
// tachyon's lost% minus the floor's in the same iteration: the pairing
// cancels most of the machine's drift, which the separate runs of
// BenchmarkOverhead cannot.
func BenchmarkOverheadFloor(b *testing.B) {
	floor, tachyon := peerNamed("trace+cpu-floor"), peerNamed("tachyon")
	for _, ld := range cpuLoads {
		b.Run(ld.name, func(b *testing.B) { benchPaired(b, ld.new, floor, tachyon) })
	}
}

func peerNamed(name string) peer {
	for _, p := range peers {
		if p.name == name {
			return p
		}
	}
	panic("no peer " + name)
}

// benchPaired runs, per iteration, an unprofiled window and one window per
// peer in rotating order, and reports each peer's median lost% and pooled
// p99 lateness, and the median paired difference of the second peer's
// lost% over the first's.
func benchPaired(b *testing.B, newLoad func() *load, peers ...peer) {
	l := newLoad()
	defer l.stop()
	pr := startProbe()
	defer func() { close(pr.stop); <-pr.done }()
	time.Sleep(200 * time.Millisecond) // let the load settle
	lost := make([][]float64, len(peers))
	late := make([][]time.Duration, len(peers))
	var diff []float64
	var baseLate []time.Duration
	b.ResetTimer()
	for i := range b.N {
		runs := make([]func() windowResult, 0, len(peers)+1)
		runs = append(runs, func() windowResult { return measure(l, pr, func() { time.Sleep(*window) }) })
		for _, pe := range peers {
			runs = append(runs, func() windowResult {
				return measure(l, pr, func() { stop := pe.start(b); time.Sleep(*window); stop() })
			})
		}
		res := make([]windowResult, len(runs))
		for k := range runs {
			j := (k + i) % len(runs) // rotate the order
			res[j] = runs[j]()
		}
		for k := range peers {
			lost[k] = append(lost[k], 100*(1-res[k+1].rate/res[0].rate))
			late[k] = append(late[k], res[k+1].late...)
		}
		baseLate = append(baseLate, res[0].late...)
		diff = append(diff, lost[1][i]-lost[0][i])
	}
	b.StopTimer()
	for k, pe := range peers {
		b.ReportMetric(benchload.Median(lost[k]), pe.name+"-lost%")
		b.ReportMetric(float64(p99(late[k]).Microseconds()), pe.name+"-p99late-us")
	}
	b.ReportMetric(benchload.Median(diff), "above-floor-pp")
	b.ReportMetric(float64(p99(baseLate).Microseconds()), "base-p99late-us")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkOverhead compares tachyon and fgprof on CPU-bound loads with
// 100, 1k and 10k parked goroutines and on a ping-pong load.
func BenchmarkOverhead(b *testing.B) {
	for _, ld := range append(cpuLoads, namedLoad{"pingpong", pingPong}) {
		for _, pe := range peers {
			b.Run(fmt.Sprintf("%s/%s", ld.name, pe.name), func(b *testing.B) {
				b.ReportAllocs()
				benchOverhead(b, ld.new, pe)
			})
		}
	}
}
