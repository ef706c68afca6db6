package report

import (
	"math"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestSpanNear2to64: a last sample near 2^64 µs gives a duration that
// saturates instead of wrapping to one interval ("Duration 10.0 ms" for a
// profile tachyon info puts at 2562047h).
func TestSpanNear2to64(t *testing.T) {
	fr := []tachyon.Frame{{File: "/a.go", Func: "main.a", Line: 1}}
	run := tachyon.StatusOnCPU | tachyon.StatusHasGIL
	ws := []writer.Sample{{ThreadID: 1, Timestamp: 0, Status: run, Frames: fr}, {ThreadID: 1, Timestamp: math.MaxUint64, Status: run, Frames: fr}}
	f := proftest.Open(t, proftest.WriteSamples(t, writer.Options{StartTime: 0, Interval: 10_000}, ws))
	p, err := Aggregate(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.End - p.First; d != math.MaxUint64 {
		t.Errorf("duration %d µs, want %d", d, uint64(math.MaxUint64))
	}
}
