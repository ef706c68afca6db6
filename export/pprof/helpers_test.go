package pprof

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// sample is one sample of a test profile.
type sample struct {
	gid    uint64
	ts     uint64
	status tachyon.Status
	frames []tachyon.Frame
}

var (
	fMain  = tachyon.Frame{File: "/app/main.go", Func: "main.main", Line: 12}
	fWork  = tachyon.Frame{File: "/app/work.go", Func: "main.work", Line: 30}
	fWork2 = tachyon.Frame{File: "/app/work.go", Func: "main.work", Line: 31}
	fPop   = tachyon.Frame{File: "/app/q.go", Func: "main.(*Queue).Pop", Line: 5}
	fWait  = tachyon.Frame{Func: "[chan receive]"}
)

const (
	running  = tachyon.StatusOnCPU | tachyon.StatusHasGIL
	runnable = tachyon.StatusGILRequested
	syscall  = tachyon.StatusUnknown | tachyon.StatusGILRequested
	// oldSyscall is a system call as files written before
	// tachyon.StatusOf left out the OnCPU flag stored it.
	oldSyscall = tachyon.StatusOnCPU | tachyon.StatusUnknown
)

// goSamples is a Go-sampler-like profile: goroutine 7 runs main.work,
// goroutine 9 is parked in a channel receive (with the synthetic
// wait-reason frame), goroutine 11 waits for a P, and one sample has no
// frames.
func goSamples() []sample {
	var ss []sample
	for i := range uint64(4) {
		ts := 1000 + 100*i
		ss = append(ss,
			sample{7, ts, running, []tachyon.Frame{fWork, fMain}},
			sample{9, ts, 0, []tachyon.Frame{fWait, fPop, fMain}},
			sample{11, ts, runnable, []tachyon.Frame{fWork2, fMain}})
	}
	return append(ss, sample{7, 1400, syscall, []tachyon.Frame{fWork2, fMain}}, sample{13, 1500, 0, nil})
}

// writeProfile writes samples (start time 1000 µs, interval 100 µs) to a
// file in a temporary directory and returns its path.
func writeProfile(t testing.TB, ss []sample) string {
	t.Helper()
	ws := make([]writer.Sample, len(ss))
	for i, s := range ss {
		ws[i] = writer.Sample{ThreadID: s.gid, Timestamp: s.ts, Status: s.status, Frames: s.frames}
	}
	path := proftest.WriteSamples(t, writer.Options{StartTime: 1000, Interval: 100}, ws)
	return path
}
