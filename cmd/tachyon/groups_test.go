package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// fourWorkersFile writes four identical workers started by one closure,
// "go func() { defer wg.Done(); work(ch) }()", each sampled most in a
// different place (compressing, on the mutex, on the channel, writing),
// and the main goroutine waiting for them.
func fourWorkersFile(t *testing.T) string {
	t.Helper()
	fr := func(fn string, line int32) tachyon.Frame {
		return tachyon.Frame{File: "/src/main.go", Func: fn, Line: line}
	}
	closure, work := fr("main.main.func4", 30), fr("main.work", 40)
	places := [][]tachyon.Frame{
		{fr("main.compress", 50)},
		{tachyon.WaitFrame("sync.Mutex.Lock"), fr("sync.(*Mutex).Lock", 81)},
		{tachyon.WaitFrame("chan receive"), {File: "/go/src/runtime/chan.go", Func: "runtime.chanrecv1", Line: 442}},
		{fr("syscall.write", 90)},
	}
	states := []tachyon.State{tachyon.Running, tachyon.Blocked, tachyon.Blocked, tachyon.Syscall}
	var samples []writer.Sample
	for tick := range 100 {
		ts := uint64(1_000_000 + tick*10_000)
		for g := range 4 {
			p := g // mostly its own place, a quarter of the time the next one's
			if tick%4 == 3 {
				p = (g + 1) % 4
			}
			frames := append(append([]tachyon.Frame{}, places[p]...), work, closure)
			samples = append(samples, writer.Sample{ThreadID: uint64(10 + g), Timestamp: ts,
				Status: tachyon.StatusOf(states[p], false), Frames: frames})
		}
		samples = append(samples, writer.Sample{ThreadID: 1, Timestamp: ts, Status: tachyon.StatusOf(tachyon.Blocked, false),
			Frames: []tachyon.Frame{tachyon.WaitFrame("sync.WaitGroup.Wait"), fr("sync.(*WaitGroup).Wait", 120), fr("main.main", 20)}})
	}
	return proftest.WriteSamples(t, writer.Options{StartTime: 1_000_000, Interval: 10_000}, samples)
}

// TestFourWorkersOneGroup: info and the report put four identical workers
// in one group, named alike (after the function their closure calls).
func TestFourWorkersOneGroup(t *testing.T) {
	path := fourWorkersFile(t)
	code, out, errs := runCLI("info", path)
	if code != exitOK {
		t.Fatalf("info: exit %d: %s", code, errs)
	}
	if want := "goroutines:    5 with samples, in 2 groups by start function\n         4  main.work\n         1  main.main\n"; !strings.Contains(out, want) {
		t.Errorf("info's groups:\n%s\nwant\n%s", out, want)
	}
	p, err := report.Aggregate(proftest.Open(t, path), report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range p.Groups {
		got = append(got, fmt.Sprintf("%d × %s", g.Goroutines, g.Entry))
	}
	if len(got) != 2 || got[0] != "4 × main.work" || got[1] != "1 × main.main" {
		t.Errorf("report's groups %q, want [4 × main.work, 1 × main.main]", got)
	}
}
