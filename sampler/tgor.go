package sampler

import "github.com/gotachyon/profiler/internal/gotrace"

// tgor is one goroutine of the trace. What only a goroutine that ran
// lately, waits for its first stack or is in a region or task needs is its
// busy state (gbusy), which a goroutine parked for good has none of. A
// record holds no pointer, so that its chunks lie off the Go heap
// (records): its stacks and busy state are numbers, its handle in the sink
// lies beside it (records.handle), and its label set too, if it has one
// (records.labelsOf), as few goroutines have one.
type tgor struct {
	id  uint64
	due uint64 // first tick not yet queued
	// lastNo is the number (traceBackend.nums) of the stack of its latest
	// sample written, 0 before the first (the emitter's track.last).
	lastNo uint32
	// stackNo is the number of its stack at the latest transition that
	// had one; 0: none yet.
	stackNo uint32
	busyNo  uint32 // its busy state's number (traceBackend.busyOf); 0: none
	slot    uint32 // its number in traceBackend.recs, from one; 0: the record is free
	h       uint32 // its handle's number in the sink (track.h); 0: none yet
	state   gstate
	role    role
	bits    gbits // its wait reason and flags
}

// gbits holds a goroutine's wait reason in its low bits, and flags above
// them: in one field, they leave a record at 40 bytes.
type gbits uint16

const (
	// reasonBits holds the trace's wait reason while the goroutine waits
	// (source.Reason), 0 none.
	reasonBits gbits = 1<<10 - 1
	// fAtStart says g was live just after the tracer started (unmet.go).
	fAtStart gbits = 1 << 10
	// fProgram says g's stacks showed a frame of the program (stack.program):
	// it is never taken for the runtime's (learnFromTransition).
	fProgram gbits = 1 << 11
	// fLabeled says g has a label set, in records.labels.
	fLabeled gbits = 1 << 12
	// fGuessed says role is roleRuntime from a stack of runtime frames
	// only, which a complete stack may correct (learnFromTransition).
	fGuessed gbits = 1 << 13
	// fActive says g ran or was sampled in the generation: its runs
	// wait for oncpu.go's placement.
	fActive gbits = 1 << 14
	// fRan says g was active in a generation since settleShare last
	// wrote it.
	fRan gbits = 1 << 15
)

// Every reason the source gives fits reasonBits.
const _ = uint(reasonBits + 1 - gotrace.MaxReasons)

// has reports whether g has every flag of f.
func (g *tgor) has(f gbits) bool { return g.bits&f == f }

// set gives g the flags f.
func (g *tgor) set(f gbits) { g.bits |= f }

// unset takes the flags f from g.
func (g *tgor) unset(f gbits) { g.bits &^= f }

// why returns g's wait reason, 0 none.
func (g *tgor) why() uint16 { return uint16(g.bits & reasonBits) }

// gbusy is the part of a goroutine's state that it holds only while it
// runs, waits for a stack or is in a region or task: a parked goroutine
// gives it back (traceBackend.idle), so that a million parked goroutines
// hold none of it.
type gbusy struct {
	seen *stack // where the scheduler last saw it running (a preemption), nil if not since it ran
	pend []run  // ticks queued, in time order, not yet written
	// cpu holds the generation's CPU samples of g, to be placed
	// (oncpu.go).
	cpu    []cpuHit
	carry  []cpuHit // payments no tick took yet (oncpu.go)
	credit float64  // ticks owed by CPU samples, carried between generations
	// regions and tasks are its active regions and the tasks it began
	// (labels.go), deep the regions begun past maxRegions.
	regions []regionRec
	deep    int
	tasks   []taskRec
}

// idle reports whether x holds nothing.
func (x *gbusy) idle() bool {
	return x.seen == nil && len(x.pend) == 0 && len(x.cpu) == 0 && len(x.carry) == 0 && x.credit == 0 &&
		len(x.regions) == 0 && x.deep == 0 && len(x.tasks) == 0
}

// busyOf returns g's busy state, nil if it has none.
func (tb *traceBackend) busyOf(g *tgor) *gbusy {
	if g.busyNo == 0 {
		return nil
	}
	return tb.busyTab[g.busyNo-1]
}

// busy returns g's busy state, taking one if it has none: a number given
// back with its state kept, else one given back without, else a new one.
func (tb *traceBackend) busy(g *tgor) *gbusy {
	if g.busyNo == 0 {
		switch {
		case len(tb.busyFree) > 0:
			g.busyNo = pop(&tb.busyFree)
		case len(tb.busyGone) > 0:
			g.busyNo = pop(&tb.busyGone)
			tb.busyTab[g.busyNo-1] = new(gbusy)
		default:
			tb.busyTab = append(tb.busyTab, new(gbusy))
			g.busyNo = uint32(len(tb.busyTab))
		}
		tb.busyUsed = max(tb.busyUsed, tb.busyHeld())
	}
	return tb.busyTab[g.busyNo-1]
}

// busyHeld returns how many busy states goroutines hold: the numbers
// given out and not given back.
func (tb *traceBackend) busyHeld() int {
	return len(tb.busyTab) - len(tb.busyFree) - len(tb.busyGone)
}

// pop takes the last number of *l.
func pop(l *[]uint32) uint32 {
	n := len(*l) - 1
	v := (*l)[n]
	*l = (*l)[:n]
	return v
}

// idle gives g's busy state back if it holds nothing (or, g ended, in any
// case), its buffers kept for the next goroutine to need one: as many as
// were in use at once lately. settleShare gives back the busy states of
// the goroutines that did not run since it last wrote them, so that a
// goroutine that runs keeps its own, the size its queues grew to.
func (tb *traceBackend) idle(g *tgor, ended bool) {
	x := tb.busyOf(g)
	if x == nil || !ended && !x.idle() {
		return
	}
	no := g.busyNo
	g.busyNo = 0
	if len(tb.busyFree) >= max(maxFree, tb.busyUsed) {
		tb.busyTab[no-1] = nil
		tb.busyGone = append(tb.busyGone, no)
		return
	}
	clear(x.pend[:cap(x.pend)])
	clear(x.cpu[:cap(x.cpu)])
	clear(x.carry[:cap(x.carry)])
	clear(x.regions[:cap(x.regions)])
	clear(x.tasks[:cap(x.tasks)])
	*x = gbusy{pend: x.pend[:0], cpu: x.cpu[:0], carry: x.carry[:0], regions: x.regions[:0], tasks: x.tasks[:0]}
	tb.busyFree = append(tb.busyFree, no)
}

// pend returns g's queued runs.
func (tb *traceBackend) pend(g *tgor) []run {
	if x := tb.busyOf(g); x != nil {
		return x.pend
	}
	return nil
}
