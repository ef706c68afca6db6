package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
	"github.com/gotachyon/profiler/internal/workload/benchload"
)

var (
	loadgen   = flag.String("loadgen", "", "run as the load generator against this address (internal)")
	rate      = flag.Int("rate", 30000, "offered load, requests per second")
	conns     = flag.Int("conns", 64, "keep-alive connections")
	parkedN   = flag.Int("parked", 0, "goroutines parked in the server")
	churnN    = flag.Int("churn", 0, "new short-lived goroutines per second in the server")
	window    = flag.Duration("window", 10*time.Second, "length of each measured window")
	settle    = flag.Duration("settle", time.Second, "time between a profiler's Start and its window")
	windows   = flag.Int("windows", 9, "rounds: windows per condition")
	condList  = flag.String("conditions", "", "comma-separated conditions to run (default: all)")
	heapLog   = flag.Duration("heaplog", 0, "log the heap at this interval during each window")
	heapProf  = flag.String("heapprofile", "", "write a heap profile at each window's end to this file")
	saveTrace = flag.String("savetrace", "", "the floors write the trace to this file instead of io.Discard")
	warmup    = flag.Duration("warmup", 3*time.Second, "load before the first window")
)

func main() {
	flag.Parse()
	log.SetFlags(0)
	if *loadgen != "" {
		if err := runLoadgen(*loadgen, *rate, *conns); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

// result is one window of one condition.
type result struct {
	cpuPer1k        float64 // ms
	lat             latencies
	startMS, stopMS float64
	ownStopMS       float64 // gotachyon's Stop less the runtime's stop; NaN for other conditions
	heapMiB         float64
	slope           float64 // MiB/min after the first minute, with -heaplog
	served          uint64
}

func run() error {
	conds, err := pick(*condList)
	if err != nil {
		return err
	}
	svc := newService()
	addr, err := serve(svc)
	if err != nil {
		return err
	}
	defer benchload.Park(*parkedN)()
	if *churnN > 0 {
		defer benchload.Churn(*churnN)()
	}
	lg, err := startLoadgen(addr)
	if err != nil {
		return err
	}
	defer lg.close()
	dir, err := os.MkdirTemp("", "svcbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	fmt.Printf("service: %d req/s offered over %d connections, %d parked, %d/s churn, %d rounds of %v windows, GOMAXPROCS %d\n",
		*rate, *conns, *parkedN, *churnN, *windows, *window, runtime.GOMAXPROCS(0))
	time.Sleep(*warmup)
	res := make(map[string][]result)
	for round := range *windows {
		for k := range conds {
			c := conds[(k+round)%len(conds)]
			r, err := measure(c, svc, lg, dir)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			res[c.name] = append(res[c.name], r)
			fmt.Fprintf(os.Stderr, "round %d %-16s cpu/1k %.2f ms  p99 %.0f µs  p99q %.0f µs  start %.1f ms  stop %.1f ms  served %d errors %d behind %.1f%% %s\n",
				round, c.name, r.cpuPer1k, r.lat.P99, r.lat.P99Q, r.startMS, r.stopMS, r.served, r.lat.Errors, 100*r.lat.Behind, lastNote)
			lastNote = ""
		}
	}
	report(conds, res)
	return nil
}

// pick returns the conditions named in list, all of them if it is empty.
func pick(list string) ([]condition, error) {
	if list == "" {
		return conditions, nil
	}
	var out []condition
	for name := range strings.SplitSeq(list, ",") {
		i := slices.IndexFunc(conditions, func(c condition) bool { return c.name == name })
		if i < 0 {
			return nil, fmt.Errorf("no condition %q", name)
		}
		out = append(out, conditions[i])
	}
	return out, nil
}

// measure runs one window of c: Start, settle, the window, Stop.
func measure(c condition, svc *service, lg *loadgenProc, dir string) (result, error) {
	var r result
	t := time.Now()
	stop, err := c.start(dir)
	if err != nil {
		return r, err
	}
	r.startMS = ms(time.Since(t))
	time.Sleep(*settle)
	lat, heap, err := window1(svc, lg, &r)
	if err != nil {
		stop()
		return r, err
	}
	t = time.Now()
	lastRuntimeStop = -1
	if err := stop(); err != nil {
		return r, err
	}
	r.stopMS = ms(time.Since(t))
	r.ownStopMS = math.NaN()
	if lastRuntimeStop >= 0 {
		r.ownStopMS = r.stopMS - ms(lastRuntimeStop)
	}
	r.lat, r.heapMiB = lat, heap[len(heap)-1]
	r.slope = slope(heap)
	return r, nil
}

// window1 measures one window: CPU per request, latencies, the heap.
func window1(svc *service, lg *loadgenProc, r *result) (latencies, []float64, error) {
	served0, cpu0 := svc.served.Load(), cputime.Process()
	if err := lg.send("begin"); err != nil {
		return latencies{}, nil, err
	}
	var heap []float64
	if *heapLog > 0 {
		for end := time.Now().Add(*window); time.Now().Before(end); {
			time.Sleep(min(*heapLog, time.Until(end)))
			heap = append(heap, heapMiB())
			fmt.Fprintf(os.Stderr, "  heap %.1f MiB\n", heap[len(heap)-1])
		}
	} else {
		time.Sleep(*window)
		heap = append(heap, heapMiB())
	}
	served, cpu := svc.served.Load()-served0, cputime.Process()-cpu0
	if *heapProf != "" {
		writeHeapProfile(*heapProf) // after the CPU reading: it collects
	}
	lat, err := lg.end()
	r.served = served
	if served > 0 {
		r.cpuPer1k = ms(cpu) / float64(served) * 1000
	}
	return lat, heap, err
}

// slope is the heap's growth in MiB per minute over the samples after the
// first minute (least squares), or 0 without enough samples.
func slope(heap []float64) float64 {
	if *heapLog <= 0 {
		return 0
	}
	skip := int(time.Minute / *heapLog)
	if len(heap)-skip < 3 {
		return 0
	}
	ys := heap[skip:]
	var sx, sy, sxx, sxy float64
	for i, y := range ys {
		x := float64(i) * heapLog.Minutes()
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	n := float64(len(ys))
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

func writeHeapProfile(path string) {
	f, err := os.Create(path)
	if err != nil {
		log.Print(err)
		return
	}
	defer f.Close()
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		log.Print(err)
	}
}

func heapMiB() float64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return float64(s[0].Value.Uint64()) / (1 << 20)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// loadgenProc is the load generator's process.
type loadgenProc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startLoadgen(addr string) (*loadgenProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-loadgen", addr, "-rate", strconv.Itoa(*rate), "-conns", strconv.Itoa(*conns))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &loadgenProc{cmd: cmd, in: in, out: bufio.NewScanner(out)}, nil
}

func (p *loadgenProc) send(line string) error {
	_, err := fmt.Fprintln(p.in, line)
	return err
}

func (p *loadgenProc) end() (latencies, error) {
	var l latencies
	if err := p.send("end"); err != nil {
		return l, err
	}
	if !p.out.Scan() {
		return l, fmt.Errorf("load generator: %w", p.out.Err())
	}
	return l, json.Unmarshal(p.out.Bytes(), &l)
}

func (p *loadgenProc) close() {
	p.in.Close()
	p.cmd.Process.Kill()
	p.cmd.Wait()
}

// report prints per condition the medians over rounds, with ranges.
func report(conds []condition, res map[string][]result) {
	floor := res[floorName]
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "condition\tcpu/1k-ms\tover-floor%\tover-floor-mean%\tover-twin%\tp50-us\tp99-us\tp99.9-us\tp99q-us\tstart-ms\tstop-ms\tstop-max-ms\tstop-own-ms\theap-MiB\theap-slope-MiB/min\t")
	for _, c := range conds {
		rs := res[c.name]
		get := func(f func(result) float64) []float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			return v
		}
		over, overMean, overTwin := paired(rs, floor), pairedMean(rs, floor), "-"
		if c.twin != "" {
			overTwin = paired(rs, res[c.twin])
		}
		cpu := get(func(r result) float64 { return r.cpuPer1k })
		stops := get(func(r result) float64 { return r.stopMS })
		fmt.Fprintf(tw, "%s\t%.2f [%.2f..%.2f]\t%s\t%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.1f\t%s\t%.1f\t%.2f\t\n", c.name,
			benchload.Median(cpu), slices.Min(cpu), slices.Max(cpu), over, overMean, overTwin,
			benchload.Median(get(func(r result) float64 { return r.lat.P50 })),
			benchload.Median(get(func(r result) float64 { return r.lat.P99 })),
			benchload.Median(get(func(r result) float64 { return r.lat.P999 })),
			benchload.Median(get(func(r result) float64 { return r.lat.P99Q })),
			benchload.Median(get(func(r result) float64 { return r.startMS })),
			benchload.Median(stops), slices.Max(stops), ownStop(rs),
			benchload.Median(get(func(r result) float64 { return r.heapMiB })),
			benchload.Median(get(func(r result) float64 { return r.slope })))
	}
	tw.Flush()
}

// ownStop returns the median over the rounds of the part of gotachyon's
// Stop that was not the runtime's stop, "-" for another condition.
func ownStop(rs []result) string {
	var v []float64
	for _, r := range rs {
		if !math.IsNaN(r.ownStopMS) {
			v = append(v, r.ownStopMS)
		}
	}
	if len(v) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", benchload.Median(v))
}

// paired returns the median (and range) over the rounds of rs's CPU per
// request in excess of base's in the same round, in percent, or "-" if
// base was not run in every round.
func paired(rs, base []result) string {
	v := excess(rs, base)
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f [%+.1f..%+.1f]", benchload.Median(v), slices.Min(v), slices.Max(v))
}

// pairedMean returns the mean over the rounds of the same excess as
// paired, with its 95 % confidence interval, or "-" if base was not run
// in every round: what many rounds resolve, where the median and the
// range of a few do not.
func pairedMean(rs, base []result) string {
	v := excess(rs, base)
	if v == nil {
		return "-"
	}
	mean, half := benchload.MeanInterval(v)
	if math.IsNaN(half) {
		return fmt.Sprintf("%+.1f", mean)
	}
	return fmt.Sprintf("%+.1f ±%.1f", mean, half)
}

// excess returns, round by round, rs's CPU per request in excess of
// base's in percent, or nil if base was not run in every round.
func excess(rs, base []result) []float64 {
	if len(base) != len(rs) || len(rs) == 0 {
		return nil
	}
	v := make([]float64, len(rs))
	for i := range rs {
		v[i] = 100 * (rs[i].cpuPer1k/base[i].cpuPer1k - 1)
	}
	return v
}
