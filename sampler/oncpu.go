package sampler

import (
	"github.com/gotachyon/profiler/internal/gotrace"
)

// Wall mode's running ticks take their stacks from CPU samples only.
//
// A tick finds a goroutine running when it holds a P. Where its code ran
// is told by the CPU profiler, whose samples come at moments that do not
// depend on what the code does; the scheduler's own sightings (a yield, a
// preemption at a function's entry, a block, the return from a system
// call) are biased toward those places and are never used for it. Whether
// its thread ran at all is also the CPU profiler's to tell: a goroutine
// holds its P while the OS runs another process on its CPU.
//
// So once a generation (about a second) each goroutine that ran or had
// CPU samples in it settles its account: each CPU sample pays for
// Rate/cpuHz ticks (one at the default rates; a fraction carries over).
// The payments go to its running ticks, nearest in time and in order, so
// that over the generation the stacks of its running ticks are its CPU
// samples' stacks, each as often as the profiler saw it. A paid tick
// carries the labels of its CPU sample's moment, so that its stack and
// its labels tell the same moment and the CPU time of each label set is
// its CPU samples'. Running ticks
// left unpaid held a P without CPU time to show for it: they are written
// as runnable (holding a P, off the CPU: status HasGIL alone) under a
// "[no CPU sample]" frame, with the labels of their own moment, at the
// stack of the goroutine's CPU sample nearest in time under the same
// labels (where its code stood while its thread waited; one whose stack
// the runtime cut short tells nothing of it), or, with no such CPU sample
// in the generation, where the scheduler last saw it.
// Payments left over (more CPU samples than running ticks:
// CPU time spent in a system call, or a goroutine whose short runs fell
// between ticks) go to its other queued ticks, nearest in time, which then
// count as running with the sample's stack; with none left they are
// carried into the next generation. So the CPU time of a wall profile is
// the CPU profiler's, goroutine by goroutine; a goroutine that ends with
// samples too many for all of its ticks leaves them to its siblings'
// unpaid running ticks (orphans.go).
//
// With Config.NoCPUSamples there is no such evidence: running ticks are on
// CPU, at the stack where the scheduler saw the goroutine.

// cpuHit is a CPU sample of a goroutine, waiting to be placed, with the
// goroutine's labels when it was taken.
type cpuHit struct {
	at gotrace.Time
	s  *stack
	ls *labelSet
}

// maxHits bounds a goroutine's CPU samples in a generation (a thread
// gives at most a few hundred a second); more are counted as unplaced.
const maxHits = 1 << 12

// placer holds place's scratch space, reused across goroutines.
type placer struct {
	claims []cpuHit
	slots  []slot
	taken  []bool
	extra  []slot   // other queued ticks that take the claims left over
	carry  []cpuHit // claims no tick took: carried into the next generation
	out    []run
}

// caps sums the scratch space's capacities, to tell when it grew.
func (p *placer) caps() int {
	return cap(p.claims) + cap(p.slots) + cap(p.taken) + cap(p.extra) + cap(p.carry) + cap(p.out)
}

// slot is a queued tick: its index and the run holding it.
type slot struct {
	tick  uint64
	run   int
	claim int // the claim it takes, -1 if none
}

// activate lists g for placement at the end of the generation.
func (tb *traceBackend) activate(g *tgor) {
	if g.has(fActive) || g.role == roleHidden || tb.em.cfg.Mode != Wall {
		return
	}
	g.set(fActive | fRan)
	tb.active = append(tb.active, g)
}

// placeActive places the CPU samples of every goroutine active in the
// generation that ends, and writes their ticks.
func (tb *traceBackend) placeActive() {
	for i, g := range tb.active {
		tb.active[i] = nil
		if !g.has(fActive) {
			continue // placed as it ended
		}
		tb.cut(g)
		tb.place(g)
		tb.flush(g)
	}
	tb.active = tb.active[:0]
}

// cpuHz is the rate of the CPU samples: the backend's CPU profiler's, or
// the application's while it is shared.
func (tb *traceBackend) cpuHz() int {
	if c := tb.cpuNow.Load(); c != nil {
		return c.rate()
	}
	return wallCPUHz
}

// place gives g's queued running ticks their stacks and states from its
// CPU samples (see above), and ends its activity in the generation.
func (tb *traceBackend) place(g *tgor) {
	g.unset(fActive)
	x := tb.busyOf(g)
	if x == nil {
		return // no queued run, no CPU sample
	}
	if tb.em.hideOwn {
		x.cpu = tb.leaveOutOwn(g.id, x.cpu)
	}
	p := &tb.oncpu
	defer func(caps int) {
		if p.caps() != caps {
			tb.grown++ // the scratch reached a new size
		}
	}(p.caps())
	p.claims = tb.claims(g, append(p.claims[:0], x.carry...))
	x.cpu, x.carry, p.carry = x.cpu[:0], x.carry[:0], p.carry[:0]
	p.slots = p.slots[:0]
	for ri, r := range x.pend {
		if r.state == gRunning && r.stack == nil {
			for t := r.from; t < r.to; t++ {
				p.slots = append(p.slots, slot{tick: t, run: ri, claim: -1})
			}
		}
	}
	if len(p.slots) == 0 && len(p.claims) == 0 {
		return
	}
	if tb.em.cfg.NoCPUSamples {
		p.claims = p.claims[:0]
	} else {
		tb.mendRuns(g, p.claims)
		tb.match(p)
		tb.spill(g, p)
	}
	tb.rebuild(g, p)
	x.carry = append(x.carry, p.carry...)
	if len(x.carry) > maxHits {
		tb.em.cpuUnplaced += uint64(len(x.carry) - maxHits)
		x.carry = x.carry[len(x.carry)-maxHits:]
	}
}

// claims appends g's CPU samples to dst as payments of one tick each: each sample
// pays for Rate/cpuHz ticks, the fraction carried in g.credit. A sample
// that pays for several ticks is repeated; of samples that pay for less
// than one each, evenly spaced ones are kept.
func (tb *traceBackend) claims(g *tgor, dst []cpuHit) []cpuHit {
	x := tb.busyOf(g)
	m := len(x.cpu)
	if m == 0 {
		return dst
	}
	per := float64(tb.em.cfg.Rate) / float64(max(tb.cpuHz(), 1))
	if per == 1 && x.credit == 0 {
		return append(dst, x.cpu...)
	}
	owed := x.credit + float64(m)*per
	k := int(owed + 1e-9)
	x.credit = max(owed-float64(k), 0)
	for i := range k {
		dst = append(dst, x.cpu[min(m-1, int((float64(i)+0.5)*float64(m)/float64(k)))])
	}
	return dst
}

// match pairs claims with running slots in time order, each with the
// nearest the order allows: every slot gets a claim if there are enough,
// every claim a slot if there are enough slots.
func (tb *traceBackend) match(p *placer) {
	n, k := len(p.slots), len(p.claims)
	p.taken = append(p.taken[:0], make([]bool, k)...)
	dist := func(j, i int) gotrace.Time {
		return absDiff(tb.tickTime(p.slots[j].tick), p.claims[i].at)
	}
	if k <= n {
		j := 0
		for i := range k {
			last := n - (k - i)
			for j < last && dist(j+1, i) <= dist(j, i) {
				j++
			}
			p.slots[j].claim, p.taken[i] = i, true
			j++
		}
		return
	}
	i := 0
	for j := range n {
		last := k - (n - j)
		for i < last && dist(j, i+1) <= dist(j, i) {
			i++
		}
		p.slots[j].claim, p.taken[i] = i, true
		i++
	}
}

// spill gives the claims no running slot took to g's other queued ticks,
// each to the nearest one still free; a claim with none left is counted
// in Stats.CPUUnplaced.
func (tb *traceBackend) spill(g *tgor, p *placer) {
	p.extra = p.extra[:0]
	listed := false
	for i, ok := range p.taken {
		if ok {
			continue
		}
		if !listed {
			tb.freeTicks(g, p)
			listed = true
		}
		best, bestD := -1, gotrace.Time(0)
		for j := range p.extra {
			if p.extra[j].claim >= 0 {
				continue
			}
			if d := absDiff(tb.tickTime(p.extra[j].tick), p.claims[i].at); best < 0 || d < bestD {
				best, bestD = j, d
			}
		}
		if best < 0 {
			p.carry = append(p.carry, p.claims[i])
			continue
		}
		p.extra[best].claim = i
	}
}

// freeTicks lists g's queued ticks that are not running, in order.
func (tb *traceBackend) freeTicks(g *tgor, p *placer) {
	for ri, r := range tb.busyOf(g).pend {
		if r.state == gRunning {
			continue
		}
		for t := r.from; t < r.to; t++ {
			p.extra = append(p.extra, slot{tick: t, run: ri, claim: -1})
		}
	}
}

// rebuild rewrites g's queue with the placement: paid running ticks run at
// their claim's stack, unpaid ones are off the CPU, and other ticks that
// took a claim run at its stack.
func (tb *traceBackend) rebuild(g *tgor, p *placer) {
	out := p.out[:0]
	si, ei, ci := 0, 0, 0
	x := tb.busyOf(g)
	for ri := range x.pend {
		r := x.pend[ri]
		if r.state == gRunning && r.stack == nil {
			sched := r.sched
			if sched == nil {
				sched = tb.schedStack(g)
			}
			for ; si < len(p.slots) && p.slots[si].run == ri; si++ {
				t := run{from: p.slots[si].tick, to: p.slots[si].tick + 1, state: gRunning, labels: r.labels}
				switch c := p.slots[si].claim; {
				case c >= 0:
					t.stack, t.labels = p.claims[c].s, p.claims[c].ls
				case tb.em.cfg.NoCPUSamples:
					t.stack = sched
				default:
					if h, ok := tb.takeOrphan(g, p.slots[si].tick); ok {
						t.stack, t.labels = h.s, h.ls // on CPU (orphans.go)
						break
					}
					t.state, t.stack = gOffCPU, sched
					if len(p.claims) > 0 {
						ci = nearestClaim(tb, p.claims, ci, p.slots[si].tick)
						if c, ok := nearestLabelled(tb, p.claims, ci, p.slots[si].tick, r.labels); ok {
							t.stack = p.claims[c].s
						}
					}
					tb.em.noCPU++
				}
				out = appendRun(out, t)
			}
			continue
		}
		from := r.from
		for ; ei < len(p.extra) && p.extra[ei].run == ri; ei++ {
			e := p.extra[ei]
			if e.claim < 0 {
				continue
			}
			if from < e.tick {
				part := r
				part.from, part.to = from, e.tick
				out = appendRun(out, part)
			}
			c := p.claims[e.claim]
			out = appendRun(out, run{from: e.tick, to: e.tick + 1, state: gRunning, stack: c.s, labels: c.ls})
			from = e.tick + 1
		}
		if from < r.to {
			r.from = from
			out = appendRun(out, r)
		}
	}
	// Placement splits runs at running ticks: the queue may grow.
	x.pend = append(grow(tb, x.pend, len(out))[:0], out...)
	clear(out)
	p.out = out[:0]
}

// nearestClaim returns the index of the claim nearest in time to tick k,
// searching from i onwards: claims are in time order, and so are the ticks
// asked for.
func nearestClaim(tb *traceBackend, claims []cpuHit, i int, k uint64) int {
	at := tb.tickTime(k)
	for i+1 < len(claims) && absDiff(claims[i+1].at, at) <= absDiff(claims[i].at, at) {
		i++
	}
	return i
}

// nearestLabelled returns the claim nearest in time to tick k among those
// taken under the labels ls, starting from i, the nearest of all claims;
// false if no claim has them.
func nearestLabelled(tb *traceBackend, claims []cpuHit, i int, k uint64, ls *labelSet) (int, bool) {
	if claims[i].ls == ls {
		return i, true
	}
	at := tb.tickTime(k)
	best, bestD := -1, gotrace.Time(0)
	for lo, hi := i-1, i+1; lo >= 0 || hi < len(claims); lo, hi = lo-1, hi+1 {
		if lo >= 0 && claims[lo].ls == ls {
			if d := absDiff(claims[lo].at, at); best < 0 || d < bestD {
				best, bestD = lo, d
			}
		}
		if hi < len(claims) && claims[hi].ls == ls {
			if d := absDiff(claims[hi].at, at); best < 0 || d < bestD {
				best, bestD = hi, d
			}
		}
		if best >= 0 {
			return best, true
		}
	}
	return 0, false
}

// appendRun appends r to runs, merged into the last run if it continues it.
func appendRun(runs []run, r run) []run {
	if n := len(runs); n > 0 {
		last := &runs[n-1]
		if last.to == r.from && last.state == r.state && last.why == r.why && last.stack == r.stack && last.sched == r.sched && last.labels == r.labels {
			last.to = r.to
			return runs
		}
	}
	return append(runs, r)
}

// tickTime is the trace time of tick k.
func (tb *traceBackend) tickTime(k uint64) gotrace.Time {
	return tb.ticks.first + gotrace.Time(k)*tb.ticks.step()
}

func absDiff(a, b gotrace.Time) gotrace.Time {
	if a > b {
		return a - b
	}
	return b - a
}
