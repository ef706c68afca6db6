package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	rtrace "runtime/trace"

	"github.com/felixge/fgprof"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/sampler"
)

// condition is one way of running the service: start starts it and returns
// the function that stops it.
type condition struct {
	name  string
	start func(dir string) (stop func() error, err error)
}

var conditions = []condition{
	{"none", func(string) (func() error, error) { return func() error { return nil }, nil }},
	{"trace-floor", traceFloor(false)},
	{"trace+cpu-floor", traceFloor(true)},
	{"tachyon-wall", tachyon(sampler.Wall)},
	{"tachyon-cpu", tachyon(sampler.CPU)},
	{"fgprof", func(string) (func() error, error) {
		var buf bytes.Buffer
		return fgprof.Start(&buf, fgprof.FormatPprof), nil
	}},
	{"pprof-cpu", func(string) (func() error, error) {
		var buf bytes.Buffer
		if err := pprof.StartCPUProfile(&buf); err != nil {
			return nil, err
		}
		return func() error { pprof.StopCPUProfile(); return nil }, nil
	}},
}

// lastNote says how the last gotachyon window ran (its backend, Auto's
// switches, the rate achieved), for the per-round log.
var lastNote string

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

// tachyon runs gotachyon in mode m at 100 Hz into a zstd file in dir.
func tachyon(m sampler.Mode) func(string) (func() error, error) {
	return func(dir string) (func() error, error) {
		path := filepath.Join(dir, "p.bin")
		p := profiler.Start(profiler.WithPath(path), profiler.WithMode(m),
			profiler.WithRate(100), profiler.WithQuiet(true))
		if err := p.Err(); err != nil {
			return nil, err
		}
		return func() error {
			err := p.Stop()
			os.Remove(path)
			st := p.Stats()
			lastNote = fmt.Sprintf("backend %s, %d switches, %.1f Hz", p.Backend(), len(st.Switches), st.AchievedHz)
			return err
		}, nil
	}
}
