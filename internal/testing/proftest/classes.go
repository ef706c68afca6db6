package proftest

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Functions of the Classes profile, and their samples.
const (
	ClassesHot    = "example.com/app.hot"   // the hottest on a CPU: 100 running
	ClassesWarm   = "example.com/app.warm"  // 40 running
	ClassesSignal = "os/signal.signal_recv" // 200 in a system call
	ClassesRead   = "syscall.Syscall6"      // 200 in a system call, old encoding (OnCPU|Unknown)
	ClassesSpin   = "example.com/app.spin"  // 150 runnable under [no CPU sample], 50 waiting for a P
	ClassesIdle   = "example.com/app.idle"  // 10 goroutines × 200 blocked in [select]
	ClassesGC     = "runtime.gcDrain"       // 60 running, of a runtime goroutine
	ClassesSweep  = "runtime.bgsweep"       // 2 runtime goroutines × 200 blocked in [GC sweep wait]
)

// ClassesTicks is the ticks of the Classes profile, every goroutine sampled
// at each, and ClassesGoroutines its goroutines (the last 3 the runtime's).
const (
	ClassesTicks      = 200
	ClassesGoroutines = 18
)

// Classes writes a wall profile of every class of goroutine state the
// views must agree on, over ClassesTicks ticks of 1 ms, and returns its
// path: a goroutine running ClassesHot (the top function on a CPU) then
// sleeping, one running ClassesWarm then in a channel receive, one in a
// system call in os/signal's loop and one in the old encoding of a system
// call (each with more samples than the hot one), one runnable by the OS
// (holding a P, "[no CPU sample]" innermost) then waiting for a P, ten
// idle in a select, and three runtime system goroutines rooted at
// "[runtime]": a GC worker running ClassesGC then idle, two sweepers.
func Classes(tb testing.TB) string {
	tb.Helper()
	fr := func(fn string, line int32) tachyon.Frame {
		return tachyon.Frame{File: "/src/" + fn + ".go", Func: fn, Line: line}
	}
	root := tachyon.Frame{Func: tachyon.RuntimeRoot}
	noCPU := tachyon.Frame{Func: tachyon.NoCPUSample}
	running := tachyon.StatusOf(tachyon.Running, false)
	runnable := tachyon.StatusOf(tachyon.Runnable, false)
	syscall := tachyon.StatusOf(tachyon.Syscall, false)
	oldSyscall := tachyon.StatusOnCPU | tachyon.StatusUnknown
	onP := tachyon.StatusHasGIL // holding a P, not seen on a CPU: runnable
	blocked := tachyon.StatusOf(tachyon.Blocked, false)
	type phase struct {
		until  int // last tick (exclusive)
		status tachyon.Status
		frames []tachyon.Frame // innermost first
	}
	gs := [][]phase{
		{{100, running, []tachyon.Frame{fr(ClassesHot, 12), fr("example.com/app.compute", 30)}},
			{ClassesTicks, blocked, []tachyon.Frame{tachyon.WaitFrame("sleep"), fr("time.Sleep", 300), fr("example.com/app.compute", 31)}}},
		{{40, running, []tachyon.Frame{fr(ClassesWarm, 7), fr("example.com/app.warmLoop", 20)}},
			{ClassesTicks, blocked, []tachyon.Frame{tachyon.WaitFrame("chan receive"), fr("example.com/app.warmLoop", 21)}}},
		{{ClassesTicks, syscall, []tachyon.Frame{fr(ClassesSignal, 163), fr("os/signal.loop", 23)}}},
		{{ClassesTicks, oldSyscall, []tachyon.Frame{fr(ClassesRead, 95), fr("syscall.read", 736), fr("example.com/app.readLoop", 50)}}},
		{{150, onP, []tachyon.Frame{noCPU, fr(ClassesSpin, 9), fr("example.com/app.spinner", 40)}},
			{ClassesTicks, runnable, []tachyon.Frame{fr(ClassesSpin, 10), fr("example.com/app.spinner", 40)}}},
	}
	for range 10 {
		gs = append(gs, []phase{{ClassesTicks, blocked, []tachyon.Frame{tachyon.WaitFrame("select"), fr(ClassesIdle, 60)}}})
	}
	gs = append(gs, []phase{{60, running, []tachyon.Frame{fr(ClassesGC, 1200), fr("runtime.gcBgMarkWorker", 1400), root}},
		{ClassesTicks, blocked, []tachyon.Frame{tachyon.WaitFrame("GC worker (idle)"), fr("runtime.gcBgMarkWorker", 1450), root}}})
	for range 2 {
		gs = append(gs, []phase{{ClassesTicks, blocked, []tachyon.Frame{tachyon.WaitFrame("GC sweep wait"), fr(ClassesSweep, 300), root}}})
	}
	const start, interval = 1_000_000, 1000
	var samples []writer.Sample
	for tick := range ClassesTicks {
		for g, phases := range gs {
			p := phases[0]
			for _, q := range phases {
				if tick < q.until {
					p = q
					break
				}
			}
			samples = append(samples, writer.Sample{ThreadID: uint64(g + 1), Timestamp: uint64(start + tick*interval),
				Status: p.status, Frames: p.frames})
		}
	}
	return WriteSamples(tb, writer.Options{StartTime: start, Interval: interval}, samples)
}
