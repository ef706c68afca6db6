package pprof

import (
	"math"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestBigTimestamps: a start time past what int64 nanoseconds hold (2262)
// gives no Time rather than one in 1969, and a span of nearly 2^64 µs a
// duration that saturates rather than wraps to one interval.
func TestBigTimestamps(t *testing.T) {
	fr := []tachyon.Frame{{File: "/a.go", Func: "main.a", Line: 1}}
	run := tachyon.StatusOnCPU | tachyon.StatusHasGIL
	for _, c := range []struct {
		name      string
		start     uint64
		ts        []uint64
		time, dur int64
	}{
		{"near 2^63", math.MaxInt64 - 100_000, []uint64{math.MaxInt64 - 100_000, math.MaxInt64 - 90_000}, 0, 20_000_000},
		{"span near 2^64", 0, []uint64{0, math.MaxUint64}, 0, math.MaxInt64},
		{"ordinary", 1_700_000_000_000_000, []uint64{1_700_000_000_010_000}, 1_700_000_000_000_000_000, 20_000_000},
	} {
		ws := make([]writer.Sample, len(c.ts))
		for i, ts := range c.ts {
			ws[i] = writer.Sample{ThreadID: 1, Timestamp: ts, Status: run, Frames: fr}
		}
		f := proftest.Open(t, proftest.WriteSamples(t, writer.Options{StartTime: c.start, Interval: 10_000}, ws))
		p, err := Convert(f, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if p.TimeNanos != c.time || p.DurationNanos != c.dur {
			t.Errorf("%s: time %d, duration %d; want %d, %d", c.name, p.TimeNanos, p.DurationNanos, c.time, c.dur)
		}
	}
}
