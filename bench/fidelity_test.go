package bench

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/felixge/fgprof"
	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/internal/workload/groundtruth"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/sampler"
)

// fidelityRoles are the rows of the fidelity table: the roles that split
// their time between phase functions, then the blocked ones.
var fidelityRoles = []string{
	groundtruth.Handler, groundtruth.Duty, groundtruth.Spinner,
	groundtruth.Sleeper, groundtruth.ChanWaiter, groundtruth.MutexWaiter,
	groundtruth.SyscallRole, groundtruth.Pool,
}

// scored is a profile's score against the workload: groundtruth's Report
// (per goroutine) or AggregateReport (per role).
type scored interface {
	MaxFuncErr(role string) float64
	String() string
}

// fidelityPeer is a profiler under test: start starts it, and returns a
// function that stops it and one that scores its profile against the
// workload, once the workload has stopped.
type fidelityPeer struct {
	name  string
	start func(b *testing.B) (stop func() error, score func(*groundtruth.Workload) (scored, error))
}

var fidelityPeers = []fidelityPeer{
	{"tachyon", tachyonFidelity(true)},
	{"tachyon-nocpu", tachyonFidelity(false)},
	{"fgprof", fgprofFidelity},
}

// tachyonFidelity profiles in wall mode with the default options (but the
// -backend flag), the CPU profiler alongside or not.
func tachyonFidelity(cpu bool) func(b *testing.B) (func() error, func(*groundtruth.Workload) (scored, error)) {
	return func(b *testing.B) (func() error, func(*groundtruth.Workload) (scored, error)) {
		be, err := sampler.ParseBackend(*backend)
		if err != nil {
			b.Fatal(err)
		}
		path := filepath.Join(b.TempDir(), "gt.bin")
		p := profiler.Start(profiler.WithPath(path), profiler.WithMode(sampler.Wall), profiler.WithQuiet(true),
			profiler.WithBackend(be), profiler.WithWallCPUSamples(cpu))
		if err := p.Err(); err != nil {
			b.Fatal(err)
		}
		score := func(w *groundtruth.Workload) (scored, error) {
			f, err := reader.Open(path)
			if err != nil {
				return nil, fmt.Errorf("open the tachyon profile: %w", err)
			}
			defer f.Close()
			r, err := groundtruth.Score(f, w)
			if err != nil {
				return nil, err
			}
			return r, nil
		}
		return p.Stop, score
	}
}

// fgprofFidelity profiles with fgprof (99 Hz, pprof) into memory.
func fgprofFidelity(*testing.B) (func() error, func(*groundtruth.Workload) (scored, error)) {
	var buf bytes.Buffer
	stop := fgprof.Start(&buf, fgprof.FormatPprof)
	score := func(w *groundtruth.Workload) (scored, error) {
		p, err := profile.Parse(&buf)
		if err != nil {
			return nil, fmt.Errorf("parse the fgprof profile: %w", err)
		}
		r, err := groundtruth.ScoreAggregate(p, w)
		if err != nil {
			return nil, err
		}
		return r, nil
	}
	return stop, score
}

// runFidelity runs a fresh ground-truth workload for a window under pe and
// scores pe's profile.
func runFidelity(b *testing.B, pe fidelityPeer) (scored, error) {
	w, err := groundtruth.Start(groundtruth.Config{Seed: uint64(time.Now().UnixNano())})
	if err != nil {
		return nil, fmt.Errorf("start the workload: %w", err)
	}
	stop, score := pe.start(b)
	time.Sleep(*window)
	serr := stop()
	w.Stop()
	if serr != nil {
		return nil, fmt.Errorf("stop %s: %w", pe.name, serr)
	}
	return score(w)
}

// missing lists the workload's goroutines (tachyon) or roles (fgprof)
// without a single sample in r's profile.
func missing(r scored) []string {
	switch r := r.(type) {
	case *groundtruth.Report:
		return r.Missing
	case *groundtruth.AggregateReport:
		return r.Missing
	}
	return nil
}

// fidelityErrs holds the function-share errors measured, by peer and role,
// one per iteration.
type fidelityErrs map[string]map[string][]float64

func (e fidelityErrs) add(peer string, r scored) {
	if e[peer] == nil {
		e[peer] = map[string][]float64{}
	}
	worst := 0.0
	for _, role := range fidelityRoles {
		v := r.MaxFuncErr(role)
		e[peer][role] = append(e[peer][role], v)
		worst = max(worst, v)
	}
	e[peer]["max"] = append(e[peer]["max"], worst)
}

// table prints the median errors side by side, one row per role.
func (e fidelityErrs) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "median max function-share error, percentage points, over %v windows\n", *window)
	fmt.Fprintf(&b, "%-8s", "role")
	for _, pe := range fidelityPeers {
		fmt.Fprintf(&b, " %14s", pe.name)
	}
	b.WriteByte('\n')
	for _, role := range append(fidelityRoles, "max") {
		fmt.Fprintf(&b, "%-8s", role)
		for _, pe := range fidelityPeers {
			fmt.Fprintf(&b, " %14.1f", benchload.Median(e[pe.name][role]))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// BenchmarkFidelity runs the ground-truth workload under tachyon in wall
// mode, with and without the CPU profiler alongside, and under fgprof, one
// window each per iteration (in rotating order), and prints each role's
// largest function-share error for the three side by side.
func BenchmarkFidelity(b *testing.B) {
	errs := fidelityErrs{}
	for i := range b.N {
		for j := range fidelityPeers {
			pe := fidelityPeers[(i+j)%len(fidelityPeers)]
			r, err := runFidelity(b, pe)
			if err != nil {
				b.Fatal(err)
			}
			if testing.Verbose() || len(missing(r)) > 0 {
				b.Logf("%s, iteration %d: %v", pe.name, i, r)
			}
			errs.add(pe.name, r)
		}
	}
	b.StopTimer()
	b.Log("\n" + errs.table())
	for _, pe := range fidelityPeers {
		b.ReportMetric(benchload.Median(errs[pe.name]["max"]), pe.name+"-max-pp")
	}
	b.ReportMetric(0, "ns/op")
}
