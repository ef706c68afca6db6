package profiler

import (
	"errors"
	"time"

	"github.com/gotachyon/profiler/dcpi"
)

// WithDCPI asks the sampler to also count the leaf PC of every on-CPU sample
// and Stop to write them as a DCPI profile of the running executable at path
// (see package dcpi): image id from the executable's mtime and build id,
// epoch = Start, event "cycles", period from this CPU's clock and the
// sampling rate, tstart and tsize of the executable's .text, and offsets
// from the run-time text start found in /proc/self/maps, so they are right
// for PIE builds too. Only the trace backend sees PCs: under the snapshot
// backend the profile is written with no samples. Linux/ELF only; a failure
// to write it joins into Stop's error.
func WithDCPI(path string) Option {
	return func(c *config) error {
		if path == "" {
			return errors.New("profiler: WithDCPI: empty path")
		}
		h := &dcpi.Histogram{}
		start := time.Now()
		return withLeafPC(h.Add, func() error {
			_, err := dcpi.WriteSelf(path, h, dcpi.SelfOptions{Start: start, RateHz: float64(c.rate)})
			return err
		})(c)
	}
}
