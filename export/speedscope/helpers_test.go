package speedscope

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

type sample struct {
	gid    uint64
	ts     uint64
	status tachyon.Status
	frames []tachyon.Frame
}

// writeProfile writes samples (start time 1000 µs, interval 100 µs) to a
// temporary file and opens it.
func writeProfile(t testing.TB, interval uint64, ss []sample) *reader.File {
	t.Helper()
	ws := make([]writer.Sample, len(ss))
	for i, s := range ss {
		ws[i] = writer.Sample{ThreadID: s.gid, Timestamp: s.ts, Status: s.status, Frames: s.frames}
	}
	path := proftest.WriteSamples(t, writer.Options{StartTime: 1000, Interval: interval}, ws)
	return proftest.Open(t, path)
}
