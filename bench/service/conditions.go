package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	rtrace "runtime/trace"
	"time"

	"github.com/felixge/fgprof"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/sampler"
)

// condition is one way of running the service: start starts it and returns
// the function that stops it. A condition with a twin is its twin with
// one thing more (the service's routes labelled, httpprof.Labels; a recent
// window), paired with it in the report.
type condition struct {
	name  string
	start func(dir string) (stop func() error, err error)
	twin  string
}

var conditions = []condition{
	none,
	withLabels(none),
	{name: "trace-floor", start: traceFloor(false)},
	{name: "trace+cpu-floor", start: traceFloor(true)},
	tachyonWall,
	withLabels(tachyonWall),
	{name: "tachyon-wall+recent", twin: "tachyon-wall", start: tachyon(sampler.Wall, profiler.WithRecent(time.Minute, 0))},
	{name: "tachyon-cpu", start: tachyon(sampler.CPU)},
	{name: "fgprof", start: func(string) (func() error, error) {
		var buf bytes.Buffer
		return fgprof.Start(&buf, fgprof.FormatPprof), nil
	}},
	{name: "pprof-cpu", start: func(string) (func() error, error) {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			return nil, err
		}
		return func() error { pprof.StopCPUProfile(); return nil }, nil
	}},
}

var (
	none = condition{name: "none", start: func(string) (func() error, error) {
		return func() error { return nil }, nil
	}}
	tachyonWall = condition{name: "tachyon-wall", start: tachyon(sampler.Wall)}
)

// withLabels returns c with the service's routes labelled: the labels
// are on from before c starts to after it stops.
func withLabels(c condition) condition {
	return condition{name: c.name + "+labels", twin: c.name, start: func(dir string) (func() error, error) {
		labelled.Store(true)
		stop, err := c.start(dir)
		if err != nil {
			labelled.Store(false)
			return nil, err
		}
		return func() error {
			err := stop()
			labelled.Store(false)
			return err
		}, nil
	}}
}

// lastNote says how the last gotachyon window ran (its backend, Auto's
// switches, the rate achieved), for the per-round log.
var lastNote string

// lastRuntimeStop is the part of the last gotachyon Stop that was the
// runtime's stop of its tracer and CPU profile (Stats.RuntimeStop), -1
// after another condition's stop.
var lastRuntimeStop time.Duration = -1

// floorName is the condition the others are paired against.
const floorName = "trace+cpu-floor"

// traceFloor runs the runtime tracer (and, if cpu, the CPU profiler) into
// io.Discard (or the file -savetrace names, for study): the cost no trace
// parser can remove.
func traceFloor(cpu bool) func(string) (func() error, error) {
	return func(string) (func() error, error) {
		var out io.Writer = io.Discard
		var f *os.File
		if *saveTrace != "" {
			var err error
			if f, err = os.Create(*saveTrace); err != nil {
				return nil, err
			}
			out = f
		}
		if err := rtrace.Start(out); err != nil {
			return nil, err
		}
		cpuOn := cpu && pprof.StartCPUProfile(io.Discard) == nil
		return func() error {
			if cpuOn {
				pprof.StopCPUProfile()
			}
			rtrace.Stop()
			if f != nil {
				return f.Close()
			}
			return nil
		}, nil
	}
}

// tachyon runs gotachyon in mode m at 100 Hz into a zstd file in dir,
// with the options more.
func tachyon(m sampler.Mode, more ...profiler.Option) func(string) (func() error, error) {
	return func(dir string) (func() error, error) {
		path := filepath.Join(dir, "p.bin")
		p := profiler.Start(append([]profiler.Option{profiler.WithPath(path), profiler.WithMode(m),
			profiler.WithRate(100), profiler.WithQuiet(true)}, more...)...)
		if err := p.Err(); err != nil {
			return nil, err
		}
		return func() error {
			err := p.Stop()
			os.Remove(path)
			st := p.Stats()
			lastRuntimeStop = st.RuntimeStop
			lastNote = fmt.Sprintf("backend %s, %d switches, %.1f Hz, the runtime's stop %.1f ms, the parse after it %.1f ms", p.Backend(), len(st.Switches), st.AchievedHz,
				float64(st.RuntimeStop.Microseconds())/1e3, float64(st.StopParse.Microseconds())/1e3)
			return err
		}, nil
	}
}
