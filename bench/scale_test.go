package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	rtrace "runtime/trace"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/felixge/fgprof"
	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/cputime"
	"github.com/gotachyon/profiler/internal/offheap"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/sampler"
)

var (
	scaleNs       = flag.String("scale", "10000,100000", "BenchmarkScale: parked goroutine counts, comma-separated (1000000 takes minutes)")
	scalePeers    = flag.String("scale-peers", "floor,tachyon,tachyon-out,fgprof", "BenchmarkScale: peers, comma-separated, of none, floor, floor-twin (the floor again, a control), tachyon, tachyon-out, tachyon-recent, tachyon-segments, fgprof")
	scaleSettle   = flag.Duration("scale-settle", 15*time.Second, "BenchmarkScale: time between a peer's start and the measured window (the sampler writes each goroutine's first samples over the first five generations, and parses up to a few seconds behind)")
	scaleAlign    = flag.Bool("scale-align", true, "BenchmarkScale: begin and end each window where the work of a trace generation's end does (genEdge), so that it holds whole generations")
	scaleTogether = flag.Bool("scale-together", false, "BenchmarkScale: run an iteration's peers at the same time, each in its own process, so that each pair shares the machine's state of the moment (for the whole CPU over the floor; see BenchmarkScale)")
)

// fgprofMaxN is the most goroutines BenchmarkScale runs fgprof with: it
// dumps every goroutine's stack 99 times a second, and at a million one
// dump takes longer than the interval.
const fgprofMaxN = 100000

// overPeers are BenchmarkScale's peers it compares with the floor: the
// tachyon peers, and floor-twin, the floor again in a process of its own,
// whose figures over the floor are the instrument's own spread.
var overPeers = []string{"tachyon", "tachyon-out", "tachyon-recent", "tachyon-segments", "floor-twin"}

// scaleEnv names the environment variable that makes the test binary a
// child of BenchmarkScale: peer,n,settle,window,align.
const scaleEnv = "BENCH_SCALE_CHILD"

// scaleHeapEnv names the environment variable that has each child of
// BenchmarkScale write its heap profile at the window's end into that
// directory, as heap-PEER-N.pprof (and heap-PEER-N-start.pprof at its
// start: with -base, what the window allocated): what the memory over the
// floor is.
const scaleHeapEnv = "BENCH_SCALE_HEAPPROFILE"

// scalePerfEnv names the environment variable that has each child of
// BenchmarkScale record its window with perf (perf record -g) into that
// directory, as perf-PEER-N.data: where the CPU over the floor goes, the
// CPU profiler being the profiler's.
const scalePerfEnv = "BENCH_SCALE_PERF"

// writeHeapProfile writes the heap profile to path, as of a collection.
func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

// scaleResult is what a child of BenchmarkScale measured.
type scaleResult struct {
	Peer    string
	N       int
	CPU     float64 // process CPU over the window, ms per second (rusage)
	RSS     uint64  // resident set at the window's end, bytes
	RSSMean uint64  // the resident set's mean over the window (read every rssEvery), bytes
	RSSPeak uint64  // the largest of those readings, bytes
	Live    uint64  // Go heap live after a collection at the window's end, bytes
	OffHeap uint64  // held off the Go heap then (package offheap), bytes
	StopMS  float64 // the peer's stop, ms
	// RuntimeStopMS is the part of StopMS the runtime took to stop its
	// tracer and CPU profile: the floor's whole stop, tachyon's
	// Stats.RuntimeStop.
	RuntimeStopMS float64
	// StopParseMS is the part of StopMS after the runtime's stop that
	// tachyon's parser took for the trace's end and every goroutine's
	// last samples (Stats.StopParse); the rest is the file's finish.
	StopParseMS float64
	// StopGCs counts the collections completed during the stop. The
	// window's end reads the live heap after a collection, so that the
	// stop begins with the collector's cycle: a collection in it is one
	// the stop's own allocation began (the runtime's list of every
	// goroutine, and the profiler's last frames), which scans every
	// goroutine's stack beside the runtime's walk of them.
	StopGCs uint64
	Hz      float64 // sampling rate achieved (tachyon's Stats, fgprof's estimate)
	GCs     uint64  // collections completed in the window
	GCCPU   float64 // the collector's CPU over the window, ms per second (runtime/metrics' estimate)
	Alloc   float64 // the Go heap's allocations over the window, bytes per second (runtime/metrics)
	Switch  float64 // the process's context switches over the window, per second (rusage, voluntary and not): its wakeups
	Window  float64 // the window's length, s
	Aligned bool    // the window begins and ends at a generation's end (genEdge)
	Err     string
}

// TestMain runs the test binary as a child of BenchmarkScale when asked to
// (scaleEnv), and the tests otherwise.
//
// A child's diagnostics: BENCH_SCALE_HEAPPROFILE=dir has each write its
// heap profile (every allocation recorded) at its window's start and end,
// BENCH_SCALE_PERF=dir has each record its window with perf.
func TestMain(m *testing.M) {
	if spec := os.Getenv(scaleEnv); spec != "" {
		os.Exit(scaleChild(spec))
	}
	os.Exit(m.Run())
}

// BenchmarkScale measures what profiling costs a program of N goroutines
// parked benchload.ParkDepth frames deep that does nothing else, at each
// N of -scale (10,000 and 100,000; 1,000,000 takes minutes and about
// 3 GB a process). Each peer runs in a child process of its own, so that
// its resident set is its own: the floor (the runtime writing the
// execution trace and the CPU profile into io.Discard, which no profiler
// built on them can go under; floor-twin is the same again, a control
// whose figures over the floor are the instrument's own spread), tachyon in wall mode at 100 Hz (the Auto
// backend, writing a zstd file to a path: its checkpoints, merged at
// Stop), tachyon-out (the same into one file, WithOutput: no checkpoints),
// tachyon-recent (tachyon keeping a minute's recent window besides, as a
// profile in segments does; not run unless named), tachyon-segments
// (tachyon in segments of a minute, with that window; not run unless
// named: at a million goroutines a segment ends full every 20 s or so) and fgprof (99 Hz, up to 100,000 goroutines), one after the other in
// rotating order in each iteration, or all at once with -scale-together:
// the machine's speed drifts from one minute to the next by more than a
// peer's cost over the floor, and peers measured side by side share its
// state of the moment, while each takes a fraction of the machine's
// cores (not fgprof, which -scale-together refuses). Side by side, each
// Stop runs beside another peer's work, and the collector's share (the
// runtime's estimate from its workers' wall time, which a process
// waiting for a core inflates) is not the collector's CPU: read the
// whole CPU over the floor there, and Stop and the figures without the
// collectors in the sequential mode.
// A child parks its goroutines, starts its peer, lets -scale-settle (15 s)
// pass, then measures one -window and stops the peer. With -scale-align
// (the default) the window begins and ends at the end of a generation's
// burst of work (genEdge), so that it holds whole generations: with a
// million goroutines one generation's end is most of a second of CPU,
// and a window of fixed length holds one more or one fewer by chance. It
// reports per N the medians over the iterations of
//
//	<peer>-cpu-ms/s     the process's CPU (rusage) over the window
//	<peer>-gc-ms/s      the collector's share of it (runtime/metrics)
//	<peer>-alloc-KB/s   the Go heap's allocations (runtime/metrics): a
//	                    tachyon peer's beside the floor's is what the
//	                    profiler allocates while it profiles
//	<peer>-switches/s   the process's context switches (rusage): how
//	                    often its threads sleep and wake
//	<t>-over-floor-%    a tachyon peer's CPU over the floor's in the same
//	                    iteration, in percent of the floor's
//	<t>-over-floor-mutator-%
//	                    the same without either's collector: each window
//	                    starts after a collection, and at 100,000
//	                    goroutines one or two more in a window move the
//	                    figure by tens of percent
//	<t>-rss-B/g         its resident set over the floor's in the same
//	                    iteration, per goroutine, at the window's end
//	<t>-rss-mean-B/g    the same for the means over the window (read
//	                    every 100 ms), and <t>-rss-peak-B/g for the
//	                    largest readings: after a collection the
//	                    scavenger may give back tens of megabytes that the
//	                    next generations take again, in either process and
//	                    at no set time, which the peak does not see
//	<t>-live-B/g        the same for what the profiler holds: the Go
//	                    heap's live objects after a collection, and what
//	                    it keeps off the heap (package offheap)
//	<t>-stop-ms         its Stop (the sampler's and the file's; tachyon's
//	                    merges the checkpoints)
//	<t>-stop-own-ms     the part of its Stop that is not the runtime's
//	                    stop of its tracer and CPU profile
//	                    (Stats.RuntimeStop), measured in the same process:
//	                    steadier than the floor's stop in another
//	floor-stop-ms       the floor's stop (the runtime stopping the tracer
//	                    and the CPU profile), and <t>-stop-over-floor-ms
//	                    a tachyon peer's over it in the same iteration
//	<t>-Hz              its achieved rate (Stats.AchievedHz)
//	fgprof-Hz           fgprof's, estimated as samples / goroutines / s
//
//	go test ./bench -run '^$' -bench Scale -benchtime 3x -window 10s -scale 10000,100000,1000000
func BenchmarkScale(b *testing.B) {
	var ns []int
	for _, f := range strings.Split(*scaleNs, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			b.Fatalf("-scale: bad count %q", f)
		}
		ns = append(ns, n)
	}
	for _, n := range ns {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { benchScale(b, n) })
	}
}

func benchScale(b *testing.B, n int) {
	var peers []string
	for _, p := range strings.Split(*scalePeers, ",") {
		if p = strings.TrimSpace(p); p == "fgprof" && n > fgprofMaxN {
			b.Logf("fgprof not run at %d goroutines (at most %d)", n, fgprofMaxN)
			continue
		}
		if p == "fgprof" && *scaleTogether {
			// It takes more than a core at 10,000 goroutines: beside it,
			// the other peers would measure its load, not their own.
			b.Fatal("fgprof takes the machine's cores: run it without -scale-together")
		}
		peers = append(peers, p)
	}
	res := map[string][]scaleResult{}
	over, rssOver, heapOver, stopOver := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	rssMeanOver, rssPeakOver := map[string][]float64{}, map[string][]float64{}
	overMut := map[string][]float64{}
	for i := range b.N {
		got, err := runScalePeers(peers, i, n)
		if err != nil {
			b.Fatal(err)
		}
		for k := range peers {
			pe := peers[(k+i)%len(peers)]
			r := got[pe]
			// On stderr: a benchmark's log is cut after ten lines.
			fmt.Fprintf(os.Stderr, "%s n=%d iteration %d: %s: %.1f ms/s (collector %.1f ms/s, %d collections, %.1f KB/s allocated) over %.2f s%s, RSS %.1f MB (window's mean %.1f, peak %.1f), live heap %.1f MB (and %.1f off it), stop %.1f ms (the runtime's %.1f, the parse after it %.1f, %d collections), %.2f Hz, %.0f context switches/s\n",
				b.Name(), n, i, pe, r.CPU, r.GCCPU, r.GCs, r.Alloc/1e3, r.Window, alignedNote(r.Aligned), float64(r.RSS)/1e6, float64(r.RSSMean)/1e6, float64(r.RSSPeak)/1e6, float64(r.Live)/1e6, float64(r.OffHeap)/1e6, r.StopMS, r.RuntimeStopMS, r.StopParseMS, r.StopGCs, r.Hz, r.Switch)
			res[pe] = append(res[pe], r)
		}
		f, okf := got["floor"]
		for _, pe := range overPeers {
			if t, ok := got[pe]; ok && okf {
				over[pe] = append(over[pe], 100*(t.CPU-f.CPU)/f.CPU)
				overMut[pe] = append(overMut[pe], 100*((t.CPU-t.GCCPU)-(f.CPU-f.GCCPU))/f.CPU)
				rssOver[pe] = append(rssOver[pe], (float64(t.RSS)-float64(f.RSS))/float64(max(n, 1)))
				rssMeanOver[pe] = append(rssMeanOver[pe], (float64(t.RSSMean)-float64(f.RSSMean))/float64(max(n, 1)))
				rssPeakOver[pe] = append(rssPeakOver[pe], (float64(t.RSSPeak)-float64(f.RSSPeak))/float64(max(n, 1)))
				heapOver[pe] = append(heapOver[pe], (float64(t.Live+t.OffHeap)-float64(f.Live+f.OffHeap))/float64(max(n, 1)))
				stopOver[pe] = append(stopOver[pe], t.StopMS-f.StopMS)
			}
		}
	}
	b.StopTimer()
	med := func(pe string, f func(scaleResult) float64) float64 {
		var v []float64
		for _, r := range res[pe] {
			v = append(v, f(r))
		}
		return benchload.Median(v)
	}
	for _, pe := range peers {
		b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.CPU }), pe+"-cpu-ms/s")
		b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.GCCPU }), pe+"-gc-ms/s")
		b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.Alloc / 1e3 }), pe+"-alloc-KB/s")
		b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.Switch }), pe+"-switches/s")
	}
	if len(res["floor"]) > 0 {
		b.ReportMetric(med("floor", func(r scaleResult) float64 { return r.StopMS }), "floor-stop-ms")
	}
	for _, pe := range overPeers {
		if len(over[pe]) > 0 {
			b.ReportMetric(benchload.Median(over[pe]), pe+"-over-floor-%")
			b.ReportMetric(benchload.Median(overMut[pe]), pe+"-over-floor-mutator-%")
			b.ReportMetric(benchload.Median(rssOver[pe]), pe+"-rss-B/g")
			b.ReportMetric(benchload.Median(rssMeanOver[pe]), pe+"-rss-mean-B/g")
			b.ReportMetric(benchload.Median(rssPeakOver[pe]), pe+"-rss-peak-B/g")
			b.ReportMetric(benchload.Median(heapOver[pe]), pe+"-live-B/g")
			b.ReportMetric(benchload.Median(stopOver[pe]), pe+"-stop-over-floor-ms")
		}
		if len(res[pe]) > 0 {
			b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.StopMS }), pe+"-stop-ms")
			b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.StopMS - r.RuntimeStopMS }), pe+"-stop-own-ms")
			b.ReportMetric(med(pe, func(r scaleResult) float64 { return r.Hz }), pe+"-Hz")
		}
	}
	if len(res["fgprof"]) > 0 {
		b.ReportMetric(med("fgprof", func(r scaleResult) float64 { return r.Hz }), "fgprof-Hz")
	}
	b.ReportMetric(0, "ns/op")
}

// runScalePeers runs iteration i's peers with n parked goroutines, one
// after the other from the i-th on, or all at once with -scale-together,
// and returns what each measured.
func runScalePeers(peers []string, i, n int) (map[string]scaleResult, error) {
	got := make(map[string]scaleResult, len(peers))
	if !*scaleTogether {
		for k := range peers {
			pe := peers[(k+i)%len(peers)]
			r, err := runScaleChild(pe, n)
			if err != nil {
				return nil, fmt.Errorf("%s at %d goroutines: %w", pe, n, err)
			}
			got[pe] = r
		}
		return got, nil
	}
	rs, errs := make([]scaleResult, len(peers)), make([]error, len(peers))
	var wg sync.WaitGroup
	for k, pe := range peers {
		wg.Go(func() { rs[k], errs[k] = runScaleChild(pe, n) })
	}
	wg.Wait()
	for k, pe := range peers {
		if errs[k] != nil {
			return nil, fmt.Errorf("%s at %d goroutines: %w", pe, n, errs[k])
		}
		got[pe] = rs[k]
	}
	return got, nil
}

// runScaleChild runs one peer with n parked goroutines in a child process
// and returns what it measured.
func runScaleChild(pe string, n int) (scaleResult, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s,%d,%s,%s,%t", scaleEnv, pe, n, *scaleSettle, *window, *scaleAlign))
	var stderr bytes.Buffer
	cmd.Stderr = io.MultiWriter(&stderr, os.Stderr) // the profiler's log lines, say
	out, err := cmd.Output()
	if err != nil {
		return scaleResult{}, fmt.Errorf("%w: %s", err, stderr.Bytes())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "scale-result ")
		if !ok {
			continue
		}
		var r scaleResult
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return r, err
		}
		if r.Err != "" {
			return r, fmt.Errorf("child: %s", r.Err)
		}
		return r, nil
	}
	return scaleResult{}, fmt.Errorf("no result from the child: %s%s", out, stderr.Bytes())
}

// scaleChild is a child of BenchmarkScale: it parks n goroutines, runs
// peer for settle and window, measures the window, and prints the result.
func scaleChild(spec string) int {
	f := strings.Split(spec, ",")
	if len(f) != 5 {
		fmt.Fprintf(os.Stderr, "%s: want peer,n,settle,window,align: %q\n", scaleEnv, spec)
		return 2
	}
	n, err1 := strconv.Atoi(f[1])
	settleD, err2 := time.ParseDuration(f[2])
	windowD, err3 := time.ParseDuration(f[3])
	align, err4 := strconv.ParseBool(f[4])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		fmt.Fprintf(os.Stderr, "%s: bad spec %q\n", scaleEnv, spec)
		return 2
	}
	r := scaleResult{Peer: f[0], N: n}
	if os.Getenv(scaleHeapEnv) != "" {
		runtime.MemProfileRate = 1 // every allocation, for the accounts to be exact
	}
	release := benchload.Park(n)
	defer release()
	for runtime.NumGoroutine() < n {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	runtime.GC()
	stop, err := startScalePeer(f[0], n)
	if err != nil {
		r.Err = err.Error()
	} else {
		time.Sleep(settleD)
		if dir := os.Getenv(scaleHeapEnv); dir != "" {
			writeHeapProfile(filepath.Join(dir, fmt.Sprintf("heap-%s-%d-start.pprof", f[0], n)))
		}
		// Every window starts just after a collection: at 100,000
		// goroutines one costs some 100-250 ms of CPU, and whether a
		// window of 10 s held one or two of them moved a peer's figure
		// by more than the profiler costs.
		runtime.GC()
		t0, c0 := time.Now(), cputime.Process()
		if align {
			t0, c0, align = genEdge(edgeLimit)
		}
		gc0, n0, sw0, a0 := gcCPU(), gcCycles(), contextSwitches(), heapAllocs()
		watchedRSS := watchRSS()
		if dir := os.Getenv(scalePerfEnv); dir != "" {
			perf := exec.Command("perf", "record", "-q", "-g", "-F", "1999", "-p", strconv.Itoa(os.Getpid()),
				"-o", filepath.Join(dir, fmt.Sprintf("perf-%s-%d.data", f[0], n)), "--", "sleep", strconv.FormatFloat(windowD.Seconds(), 'f', 3, 64))
			perf.Stderr = os.Stderr
			if err := perf.Run(); err != nil {
				fmt.Fprintln(os.Stderr, "perf:", err)
			}
		} else {
			time.Sleep(time.Until(t0.Add(windowD)))
		}
		t1, c1 := time.Now(), cputime.Process()
		if align && os.Getenv(scalePerfEnv) == "" {
			t1, c1, align = genEdge(edgeLimit)
		}
		secs := t1.Sub(t0).Seconds()
		r.Window, r.Aligned = secs, align
		r.CPU = float64(c1-c0) / 1e6 / secs
		r.Switch = float64(contextSwitches()-sw0) / secs
		r.GCCPU = (gcCPU() - gc0) * 1e3 / secs
		r.GCs = gcCycles() - n0
		r.Alloc = float64(heapAllocs()-a0) / secs
		r.RSSMean, r.RSSPeak = watchedRSS()
		r.RSS, r.Live, r.OffHeap = benchload.RSS(), liveHeap(), uint64(offheap.InUse())
		if dir := os.Getenv(scaleHeapEnv); dir != "" {
			writeHeapProfile(filepath.Join(dir, fmt.Sprintf("heap-%s-%d.pprof", f[0], n)))
		}
		ts, g0 := time.Now(), gcCycles()
		st, err := stop()
		r.StopMS = float64(time.Since(ts).Microseconds()) / 1e3
		r.StopGCs = gcCycles() - g0
		r.Hz = st.hz
		r.RuntimeStopMS = float64(st.runtime.Microseconds()) / 1e3
		r.StopParseMS = float64(st.parse.Microseconds()) / 1e3
		if err != nil {
			r.Err = err.Error()
		}
	}
	line, _ := json.Marshal(r)
	fmt.Printf("scale-result %s\n", line)
	return 0
}

// contextSwitches returns the process's context switches so far, voluntary
// and involuntary, all threads (rusage).
func contextSwitches() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return int64(ru.Nvcsw) + int64(ru.Nivcsw)
}

// peerStop is what a peer's stop returns: its achieved rate, the part of
// its stop the runtime's took (zero for fgprof), and for tachyon the parse
// after it.
type peerStop struct {
	hz             float64
	runtime, parse time.Duration
}

// startScalePeer starts a peer of BenchmarkScale and returns what stops it
// and returns its achieved rate and the runtime's part of its stop.
func startScalePeer(name string, n int) (stop func() (peerStop, error), err error) {
	switch name {
	case "none":
		return func() (peerStop, error) { return peerStop{}, nil }, nil
	case "floor", "floor-twin":
		if err := rtrace.Start(io.Discard); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(io.Discard); err != nil {
			rtrace.Stop()
			return nil, err
		}
		return func() (peerStop, error) {
			t0 := time.Now()
			pprof.StopCPUProfile()
			rtrace.Stop()
			return peerStop{runtime: time.Since(t0)}, nil
		}, nil
	case "tachyon", "tachyon-out", "tachyon-recent", "tachyon-segments":
		dir, err := os.MkdirTemp("", "scale")
		if err != nil {
			return nil, err
		}
		be, err := sampler.ParseBackend(*backend)
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, "p.bin")
		out := profiler.WithPath(path)
		var f *os.File
		if name == "tachyon-out" {
			if f, err = os.Create(path); err != nil {
				return nil, err
			}
			out = profiler.WithOutput(f)
		}
		opts := []profiler.Option{out, profiler.WithMode(sampler.Wall), profiler.WithRate(100), profiler.WithQuiet(true),
			profiler.WithBackend(be)}
		switch name {
		case "tachyon-recent":
			opts = append(opts, profiler.WithRecent(time.Minute, 0))
		case "tachyon-segments":
			opts[0] = profiler.WithPath(dir)
			opts = append(opts, profiler.WithSegment(time.Minute))
		}
		p := profiler.Start(opts...)
		if err := p.Err(); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		return func() (peerStop, error) {
			defer os.RemoveAll(dir)
			err := p.Stop()
			if f != nil {
				f.Close()
			}
			st := p.Stats()
			return peerStop{hz: st.AchievedHz, runtime: st.RuntimeStop, parse: st.StopParse}, err
		}, nil
	case "fgprof":
		var buf bytes.Buffer
		t0 := time.Now()
		stopF := fgprof.Start(&buf, fgprof.FormatPprof)
		return func() (peerStop, error) {
			if err := stopF(); err != nil {
				return peerStop{}, err
			}
			secs := time.Since(t0).Seconds()
			prof, err := profile.Parse(&buf)
			if err != nil {
				return peerStop{}, err
			}
			var samples int64
			for _, s := range prof.Sample {
				samples += s.Value[0]
			}
			return peerStop{hz: float64(samples) / float64(max(n, 1)) / secs}, nil
		}, nil
	}
	return nil, fmt.Errorf("unknown peer %q", name)
}

// gcCPU returns the collector's CPU time so far, in seconds, as the
// runtime estimates it.
func gcCPU() float64 {
	if v := readMetric("/cpu/classes/gc/total:cpu-seconds"); v.Kind() == metrics.KindFloat64 {
		return v.Float64()
	}
	return 0
}

// heapAllocs returns the bytes the Go heap has allocated since the
// process began.
func heapAllocs() uint64 {
	if v := readMetric("/gc/heap/allocs:bytes"); v.Kind() == metrics.KindUint64 {
		return v.Uint64()
	}
	return 0
}

// readMetric reads one of runtime/metrics' metrics.
func readMetric(name string) metrics.Value {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value
}

// rssEvery is how often watchRSS reads the resident set.
const rssEvery = 100 * time.Millisecond

// watchRSS reads the resident set every rssEvery until the function it
// returns is called, which returns the mean and the largest of the
// readings.
func watchRSS() (stop func() (mean, peak uint64)) {
	done, res := make(chan struct{}), make(chan [2]uint64)
	go func() {
		tick := time.NewTicker(rssEvery)
		defer tick.Stop()
		first := benchload.RSS()
		sum, peak, k := first, first, uint64(1)
		for {
			select {
			case <-tick.C:
				v := benchload.RSS()
				sum, peak, k = sum+v, max(peak, v), k+1
			case <-done:
				res <- [2]uint64{sum / k, peak}
				return
			}
		}
	}()
	return func() (uint64, uint64) {
		close(done)
		r := <-res
		return r[0], r[1]
	}
}

// liveHeap returns the Go heap's live objects after a collection, in
// bytes: at a million goroutines the heap at any moment holds a changing
// share of garbage (the runtime's own trace allocates), which a collection
// takes away.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
