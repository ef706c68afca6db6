package dcpi

import "time"

// A Recorder makes a DCPI profile of the running executable out of the
// on-CPU samples a profiler tells it of: it is an observer of package
// sampler's (OnCPU), to pass to profiler.WithObserver, which closes it at
// Stop; Close writes the profile. Make one with AtStop.
type Recorder struct {
	h      histogram
	path   string
	start  time.Time
	rateHz int
}

// AtStop returns a Recorder of a DCPI profile of the running executable,
// written at path when the profiler stops:
//
//	profiler.Start(profiler.WithObserver(dcpi.AtStop("cpu.dcpi", 100)))
//
// It counts the leaf PC of every on-CPU sample in a histogram; Close
// writes it as a DCPI file: image id from the executable's mtime and build
// id, epoch = the call to AtStop, event "cycles", period from this CPU's
// clock and rateHz (the profiler's sampling rate: pass the same as
// WithRate, 100 by default), tstart and tsize of the executable's .text,
// and offsets from the run-time text start found in /proc/self/maps, so
// they are right for PIE builds too. Only the trace backend sees PCs:
// under the snapshot backend the profile has no samples. Linux/ELF only.
func AtStop(path string, rateHz int) *Recorder {
	return &Recorder{path: path, start: time.Now(), rateHz: rateHz}
}

// OnCPU counts leafPC, the innermost PC of an on-CPU sample (goroutine g's,
// at ts).
func (r *Recorder) OnCPU(g, ts uint64, leafPC uintptr) { r.h.Add(leafPC) }

// Close writes the profile to the path given to AtStop.
func (r *Recorder) Close() error {
	_, err := writeSelf(r.path, &r.h, selfOptions{Start: r.start, RateHz: float64(r.rateHz)})
	return err
}
