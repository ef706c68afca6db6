package dcpi

import "time"

// AtStop returns the two hooks profiler.WithLeafPC takes, for a DCPI
// profile of the running executable written at path when the profiler
// stops:
//
//	profiler.Start(profiler.WithLeafPC(dcpi.AtStop("cpu.dcpi", 100)))
//
// add counts the leaf PC of every on-CPU sample in a Histogram; finish
// writes it with WriteSelf: image id from the executable's mtime and build
// id, epoch = the call to AtStop, event "cycles", period from this CPU's
// clock and rateHz (the profiler's sampling rate: pass the same as
// WithRate, 100 by default), tstart and tsize of the executable's .text,
// and offsets from the run-time text start found in /proc/self/maps, so
// they are right for PIE builds too. Only the trace backend sees PCs:
// under the snapshot backend the profile has no samples. Linux/ELF only.
func AtStop(path string, rateHz int) (add func(pc uintptr), finish func() error) {
	h := &Histogram{}
	start := time.Now()
	return h.Add, func() error {
		_, err := WriteSelf(path, h, SelfOptions{Start: start, RateHz: float64(rateHz)})
		return err
	}
}
