package sampler

import (
	"github.com/gotachyon/profiler/internal/gotrace"
)

// CPU samples that outlive their goroutine.
//
// oncpu.go matches a goroutine's CPU samples with its own running ticks.
// A goroutine shorter than a tick's period seldom has both: a tick finds
// it running with the chance of its running time over the period, and a
// CPU sample finds it with the chance of its CPU time over the CPU
// profiler's, independently. One that spins 2 ms has a running tick one
// time in five and a CPU sample one time in five, both one time in
// twenty-five: most of such goroutines' CPU samples end with them
// unplaced, and most of their running ticks are left unpaid, as
// "[no CPU sample]". A program that starts many short goroutines (a
// worker per request) lost most of their CPU time from its on-CPU time.
//
// So a goroutine that ends with CPU samples no tick of its own took
// leaves them as orphans, and a running tick left unpaid of a goroutine
// from the same creation site, within orphanAge of the sample, takes one:
// the tick is on CPU, at the sample's stack and labels. Over the program,
// each creation site's short goroutines then have the CPU time of their
// CPU samples, at their stacks and under their labels, as the CPU profiler
// counts it, and a running tick is runnable only where no such sample is
// left; a tick of one such goroutine may show another's stack. Orphans
// that no tick takes within orphanAge, or of goroutines without a
// creation site, are counted in Stats.CPUUnplaced.

// orphan is a CPU sample its goroutine, created at site, left unplaced.
type orphan struct {
	cpuHit
	site string
}

const (
	// orphanAge is how far in time a tick may take an orphan from.
	orphanAge = gotrace.Time(2e9)
	// maxOrphans bounds the orphans kept: more are counted as unplaced.
	maxOrphans = 1 << 12
)

// adopt keeps the CPU samples g leaves unplaced as it ends as orphans.
func (tb *traceBackend) adopt(g *tgor, hits []cpuHit) {
	site := tb.base(g).created
	for _, h := range hits {
		if site == "" || len(tb.orphans) >= maxOrphans {
			tb.em.cpuUnplaced++
			continue
		}
		tb.orphans = append(tb.orphans, orphan{cpuHit: h, site: site})
	}
}

// takeOrphan removes and returns an orphan of g's creation site within
// orphanAge of tick k, the oldest if several.
func (tb *traceBackend) takeOrphan(g *tgor, k uint64) (cpuHit, bool) {
	if len(tb.orphans) == 0 {
		return cpuHit{}, false
	}
	site := tb.base(g).created
	if site == "" {
		return cpuHit{}, false
	}
	at := tb.tickTime(k)
	for i := range tb.orphans {
		if o := &tb.orphans[i]; o.site == site && absDiff(o.at, at) <= orphanAge {
			h := o.cpuHit
			n := copy(tb.orphans[i:], tb.orphans[i+1:])
			clear(tb.orphans[i+n:])
			tb.orphans = tb.orphans[:i+n]
			tb.em.cpuAdopted++
			return h, true
		}
	}
	return cpuHit{}, false
}

// expireOrphans counts the orphans older than orphanAge before t, or all
// of them (at the trace's end), as unplaced.
func (tb *traceBackend) expireOrphans(t gotrace.Time, all bool) {
	keep := tb.orphans[:0]
	for _, o := range tb.orphans {
		if all || o.at+orphanAge < t {
			tb.em.cpuUnplaced++
			continue
		}
		keep = append(keep, o)
	}
	clear(tb.orphans[len(keep):])
	tb.orphans = keep
}
