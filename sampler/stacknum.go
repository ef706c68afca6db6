package sampler

// stackNums numbers the stacks the trace backend's records hold, so that a
// record holds no pointer and its chunks can lie off the Go heap (records).
// A record holds a stack's number; stackNums holds the stack. A number
// stays its stack's while a record holds it: sweep frees only the numbers
// no record holds, and a stack whose number was freed takes a new one when
// a record takes it again. Number 0 is no stack.
type stackNums struct {
	byNum []*stack // by number; byNum[0] is nil
	free  []uint32 // numbers freed by sweep, for the next stacks
	// limit is how many numbers may be in use before the next sweep: twice
	// those the last sweep kept, at least minSweep.
	limit int
	marks []uint64 // sweep's scratch: a bit per number
}

// minSweep is the fewest numbers in use at which a sweep is worth a pass
// over every record.
const minSweep = 1 << 12

// at returns the stack numbered n, nil for 0.
func (ns *stackNums) at(n uint32) *stack {
	if n == 0 {
		return nil
	}
	return ns.byNum[n]
}

// num returns s's number, giving it one if it has none: 0 for nil.
func (ns *stackNums) num(s *stack) uint32 {
	if s == nil {
		return 0
	}
	if n := s.num; n != 0 && int(n) < len(ns.byNum) && ns.byNum[n] == s {
		return n
	}
	if len(ns.byNum) == 0 {
		ns.byNum = append(ns.byNum, nil)
	}
	var n uint32
	if k := len(ns.free); k > 0 {
		n = ns.free[k-1]
		ns.free = ns.free[:k-1]
	} else {
		n = uint32(len(ns.byNum))
		ns.byNum = append(ns.byNum, nil)
	}
	ns.byNum[n], s.num = s, n
	return n
}

// inUse returns how many numbers are given out.
func (ns *stackNums) inUse() int { return max(len(ns.byNum)-1-len(ns.free), 0) }

// full reports whether enough numbers are in use for a sweep.
func (ns *stackNums) full() bool { return ns.inUse() > max(ns.limit, minSweep) }

// sweep frees every number that held does not yield. held yields each
// number a record holds (mark); numbers it yields twice count once.
func (ns *stackNums) sweep(held func(mark func(uint32))) {
	words := (len(ns.byNum) + 63) / 64
	if cap(ns.marks) < words {
		ns.marks = make([]uint64, words)
	} else {
		ns.marks = ns.marks[:words]
		clear(ns.marks)
	}
	held(func(n uint32) { ns.marks[n/64] |= 1 << (n % 64) })
	ns.free = ns.free[:0]
	kept := 0
	for n := len(ns.byNum) - 1; n >= 1; n-- {
		switch {
		case ns.marks[n/64]&(1<<(n%64)) != 0:
			kept++
		case n == len(ns.byNum)-1: // the highest free numbers go
			ns.byNum[n] = nil
			ns.byNum = ns.byNum[:n]
		default:
			ns.byNum[n] = nil
			ns.free = append(ns.free, uint32(n))
		}
	}
	ns.limit = 2 * kept
}

// stackOf returns g's stack at its latest transition that had one, nil if
// none yet.
func (tb *traceBackend) stackOf(g *tgor) *stack { return tb.nums.at(g.stackNo) }

// setStack makes s g's stack.
func (tb *traceBackend) setStack(g *tgor, s *stack) { g.stackNo = tb.nums.num(s) }

// sweepStacks frees the stack numbers no record holds, once enough are
// given out.
func (tb *traceBackend) sweepStacks() {
	if tb.nums.full() {
		tb.sweepStacksNow()
	}
}

// sweepStacksNow frees the stack numbers no record holds.
func (tb *traceBackend) sweepStacksNow() {
	tb.nums.sweep(func(mark func(uint32)) {
		for g := range tb.lives {
			mark(g.lastNo)
			mark(g.stackNo)
		}
	})
}
