package proftest

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// The leaking wall profile of LeakFile: 6 s at 100 Hz.
const (
	LeakStart    = 1_700_000_000_000_000
	LeakInterval = 10_000 // µs
	LeakTicks    = 600
	// LeakSite and PoolSite are the creation sites of its two groups.
	LeakSite = "main.leak leak.go:20"
	PoolSite = "main.startPool pool.go:10"
	// LeakEvery is the ticks between two leaked goroutines (10 a second),
	// LeakMarkedFrom the tick from which they are labelled unreachable,
	// and PoolSize the pool's workers.
	LeakEvery      = 10
	LeakMarkedFrom = 400
	PoolSize       = 20
)

// LeakFile writes a wall profile in which a goroutine leaks every
// LeakEvery ticks (created at LeakSite, blocked in a channel send for
// ever, labelled leak=unreachable from tick LeakMarkedFrom) beside
// PoolSize workers created at PoolSite before it began, blocked in a
// channel receive but for a running tick now and then, and a main
// goroutine that runs throughout; it returns the file's path.
func LeakFile(tb testing.TB) string {
	tb.Helper()
	created := func(site string) tachyon.Frame {
		return tachyon.LabelFrame(tachyon.Label{Key: tachyon.LabelCreatedBy, Value: site})
	}
	leakWait := []tachyon.Frame{tachyon.WaitFrame("chan send"), {Func: "main.send", File: "/src/leak.go", Line: 31}, created(LeakSite)}
	leakMarked := []tachyon.Frame{leakWait[0], leakWait[1], leakWait[2], tachyon.LabelFrame(tachyon.Label{Key: tachyon.LabelLeak, Value: tachyon.LeakUnreachable})}
	poolWait := []tachyon.Frame{tachyon.WaitFrame("chan receive"), {Func: "main.worker", File: "/src/pool.go", Line: 15}, created(PoolSite)}
	poolRun := []tachyon.Frame{{Func: "main.work", File: "/src/pool.go", Line: 18}, {Func: "main.worker", File: "/src/pool.go", Line: 16}, created(PoolSite)}
	mainRun := []tachyon.Frame{{Func: "main.main", File: "/src/main.go", Line: 5}}
	var out []writer.Sample
	for tick := range LeakTicks {
		ts := LeakStart + uint64(tick)*LeakInterval
		out = append(out, writer.Sample{ThreadID: 1, Timestamp: ts, Status: tachyon.StatusOf(tachyon.Running, false), Frames: mainRun})
		for w := range PoolSize {
			st, fr := tachyon.Blocked, poolWait
			if (tick+w*37)%401 == 0 {
				st, fr = tachyon.Running, poolRun
			}
			out = append(out, writer.Sample{ThreadID: uint64(10 + w), Timestamp: ts, Status: tachyon.StatusOf(st, false), Frames: fr})
		}
		for k := 0; k*LeakEvery <= tick; k++ {
			fr := leakWait
			if tick >= LeakMarkedFrom {
				fr = leakMarked
			}
			out = append(out, writer.Sample{ThreadID: uint64(1000 + k), Timestamp: ts, Status: tachyon.StatusOf(tachyon.Blocked, false), Frames: fr})
		}
	}
	return WriteSamples(tb, writer.Options{StartTime: LeakStart, Interval: LeakInterval}, out)
}
