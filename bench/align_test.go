package bench

import (
	"runtime/metrics"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
)

// The runtime ends a generation of the execution trace about a second
// after the last one ended, and its end walks every goroutine: with many
// parked goroutines, a burst of one core's work (tens of milliseconds at
// 100,000, most of a second at a million), followed in a profiler's
// process by the parse of that generation. A window of fixed length holds
// one burst more or less depending on where it falls, which moves a
// peer's CPU by up to a burst over the window. genEdge finds the end of
// such a burst, so that a window from one to another holds whole
// generations in every peer.

// Burst detection, read from the process's CPU clock every edgePoll: a
// burst is edgeBusyPolls polls in a row at edgeBusy cores or more, and it
// ends at the first edgeQuietPolls polls in a row under edgeQuiet cores.
// Bursts shorter than a few polls (the generation's end with 10,000
// goroutines) go unseen, and the window is then not aligned.
const (
	edgePoll       = 10 * time.Millisecond
	edgeBusy       = 0.5
	edgeBusyPolls  = 2
	edgeQuiet      = 0.2
	edgeQuietPolls = 3
	// edgeLimit is how long genEdge looks for a burst's end: the period
	// of generations with a million goroutines (a second, and the
	// burst), and some.
	edgeLimit = 3 * time.Second
)

// genEdge waits for the end of the next burst of one core's work in the
// process that no collection completed in, and returns the time and the
// process's CPU there; false, with the time and CPU when it gave up, if
// none ended within limit.
func genEdge(limit time.Duration) (time.Time, time.Duration, bool) {
	deadline := time.Now().Add(limit)
	t, c := time.Now(), cputime.Process()
	busy, quiet := 0, 0
	var gc0 uint64
	for {
		time.Sleep(edgePoll)
		t1, c1 := time.Now(), cputime.Process()
		rate := float64(c1-c) / float64(t1.Sub(t))
		t, c = t1, c1
		switch {
		case busy < edgeBusyPolls && rate >= edgeBusy:
			if busy++; busy == edgeBusyPolls {
				gc0 = gcCycles()
			}
		case busy < edgeBusyPolls:
			busy = 0
		case rate < edgeQuiet:
			if quiet++; quiet == edgeQuietPolls {
				if gcCycles() == gc0 {
					return t, c, true
				}
				busy, quiet = 0, 0 // a collection's: wait for the next
			}
		default:
			quiet = 0
		}
		if t.After(deadline) {
			return t, c, false
		}
	}
}

// gcCycles returns the collections completed so far, without stopping
// the world (runtime.ReadMemStats would).
func gcCycles() uint64 {
	if v := readMetric("/gc/cycles/total:gc-cycles"); v.Kind() == metrics.KindUint64 {
		return v.Uint64()
	}
	return 0
}

// alignedNote says how a window was bounded, for the log.
func alignedNote(aligned bool) string {
	if aligned {
		return " (whole generations)"
	}
	return " (not aligned)"
}
