package profiler

import (
	"fmt"
	"time"

	"github.com/gotachyon/profiler/sampler"
)

// WithCreationLabels says whether every sample of a goroutine carries
// where it was created, the label created_by (tachyon.LabelCreatedBy:
// the function holding the go statement and its file:line), so that
// time, and goroutines that pile up (tachyon leaks), can be grouped by
// the code that spawned them. It is on by default; its cost is in
// bench/MEASUREMENTS.md. A goroutine created before Start has none under
// the trace backend, which sees only the creations it traces.
func WithCreationLabels(on bool) Option {
	return func(c *config) error {
		c.noCreation = !on
		return nil
	}
}

// WithLeakProfile takes the runtime's goroutine leak profile (Go 1.27
// and later) every d and at Stop, and labels the goroutines it proves
// can never wake "leak=unreachable" (tachyon.LabelLeak) from then on, so
// that tachyon leaks and the report tell them from goroutines that are
// only blocked for long. Each profile runs a garbage collection and
// stops the world for a dump of every goroutine's stack, a time that
// grows with the goroutines (bench/MEASUREMENTS.md): it is off by
// default, and refused while the dump would stop the world longer than
// sampler.MaxSnapshotPause. On a Go without the profile, Stop's log says
// so and the profile goes on without. d must not be negative; 0 turns
// it off.
func WithLeakProfile(d time.Duration) Option {
	return func(c *config) error {
		if d < 0 {
			return fmt.Errorf("profiler: WithLeakProfile(%v): negative period", d)
		}
		c.leakEvery = d
		return nil
	}
}

// leakSummary is what Stop's log says of the leak profiles, "" if none
// were asked for.
func leakSummary(st sampler.Stats) string {
	switch {
	case st.LeakProfile != "":
		return " (" + st.LeakProfile + ")"
	case st.LeakProfiles > 0 || st.LeakRefused > 0:
		return fmt.Sprintf(" (%d goroutine leak profiles, %d refused, %d goroutines unreachable)", st.LeakProfiles, st.LeakRefused, st.LeakMarked)
	}
	return ""
}
