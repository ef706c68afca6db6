package gotrace

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/gotachyon/profiler/internal/tracelabel"
)

// The order of events: each thread's events are in order in its batches;
// the threads' are merged by time, except that an event about a goroutine
// that another thread must first have made runnable or waiting (a start,
// an unblock, a switch) waits for that thread's event, by the goroutine's
// sequence number. golang.org/x/exp/trace also orders processors and the
// collector; goroutines' states do not depend on those.

// decode reads the event at c into c, moving to the thread's next batch
// when one ends; false when the thread has no events left.
func (r *Reader) decode(c *cursor) (bool, error) {
	for c.off == c.end {
		bs := r.gen.batches
		if bs[c.bi].next < 0 {
			return false, nil
		}
		c.bi = bs[c.bi].next
		c.off, c.end = bs[c.bi].off, bs[c.bi].end
		c.last = r.gen.mul(bs[c.bi].time)
	}
	d := r.gen.data[:c.end]
	typ := d[c.off]
	if !timed(typ) {
		return false, fmt.Errorf("gotrace: generation %d, thread batch at %d: event type %d", r.gen.num, c.off, typ)
	}
	// The time delta, then the arguments: uvarints of at most 64 bits, as
	// encoding/binary reads them (the reader's innermost loop). The
	// arguments go straight into c.args: a copy of them made with wide
	// loads over narrow stores stalls the processor's store forwarding.
	j := c.off + 1
	var dt uint64
	var ok bool
	if j < len(d) && d[j] < 0x80 { // most are one byte
		dt, j = uint64(d[j]), j+1
	} else if dt, j, ok = longVarint(d, j); !ok {
		return false, r.short(c)
	}
	c.args = [4]uint64{}
	args := c.args[:nargs[typ]]
	room := c.off+maxEvent <= len(d) // for a word read at any argument
	for k := range args {
		if j < len(d) && d[j] < 0x80 {
			args[k], j = uint64(d[j]), j+1
			continue
		}
		if room {
			// Up to four bytes (ids, stacks, times) and a thread of
			// none (^0, ten bytes), read from one word without a
			// call.
			x := binary.LittleEndian.Uint64(d[j:])
			if ends := ^x & 0x8080808080808080; ends&0x80808080 != 0 {
				v, n := fourBytes(x, ends)
				args[k], j = v, j+n
				continue
			}
			if noThread(d, j, x) {
				args[k], j = ^uint64(0), j+10
				continue
			}
		}
		if args[k], j, ok = longVarint(d, j); !ok {
			return false, r.short(c)
		}
	}
	c.typ, c.off = typ, j
	c.time = r.gen.mul(dt) + c.last
	c.last = c.time
	return true, nil
}

// short is the error for the event at c, cut short.
func (r *Reader) short(c *cursor) error {
	return fmt.Errorf("gotrace: generation %d, thread batch at %d: %w", r.gen.num, c.off, errShort)
}

// advance handles the event of the heap's cursor i if it can happen now,
// then moves the cursor on.
func (r *Reader) advance(i int) (bool, error) {
	c := r.heap[i]
	if ok, err := r.handle(c); !ok || err != nil {
		return false, err
	}
	ok, err := r.decode(c)
	if err != nil {
		return false, err
	}
	if ok {
		if i != 0 || !heapTopStays(r.heap) {
			heapUpdate(r.heap, i)
		}
	} else {
		r.heap = heapRemove(r.heap, i)
	}
	return true, nil
}

// statusRun handles the status report at c, then the ones after it on
// c's thread while each can be handled in the same step as the next event
// of the trace: the step has queued no event yet, and c is the first
// thread (the heap would leave it first) with no CPU sample before it.
// The runtime reports every goroutine's status in one run at a
// generation's start, and SkipSame leaves out most of them. c is left at
// the last report handled, as handle leaves it.
func (r *Reader) statusRun(c *cursor) error {
	for {
		if err := r.status(c); err != nil {
			return err
		}
		h := r.heap
		if r.nout != 0 || r.done || len(h) == 0 || h[0] != c {
			return nil
		}
		bi, off, end, last := c.bi, c.off, c.end, c.last
		ok, err := r.decodeStatus(c)
		if !ok || err != nil || c.typ != evGoStatusStack && c.typ != evGoStatus || !heapTopStays(h) ||
			r.si < len(r.gen.samples) && r.gen.samples[r.si].time < c.time {
			c.bi, c.off, c.end, c.last = bi, off, end, last // advance decodes it again
			return nil
		}
	}
}

// handle applies the event at c, unless it must wait for another thread's.
func (r *Reader) handle(c *cursor) (bool, error) {
	a, m := &c.args, c.m
	switch c.typ {
	case evGoStart:
		g := r.gs.Find(a[0])
		if g == nil || g.state != GoRunnable || !r.succeeds(g, a[1]) {
			return false, nil
		}
		g.seq = uint32(a[1])
		if r.Start != nil && g.user != 0 && r.Start(g.id, g.user, r.next(c.time)) {
			r.bump(c.time)
			g.state = GoRunning
		} else {
			r.set(g, GoRunning, c.time, 0, 0)
		}
		m.run(g)
	case evGoUnblock:
		g := r.gs.Find(a[0])
		if g == nil || g.state != GoWaiting || !r.succeeds(g, a[1]) {
			return false, nil
		}
		g.seq = uint32(a[1])
		from := g.state
		g.state = GoRunnable
		r.transition(g, c.time, from, GoRunnable, 0)
	case evGoSwitch, evGoSwitchDestroy:
		return r.goSwitch(c)
	case evGoCreate, evGoCreateBlocked:
		to := GoRunnable
		if c.typ == evGoCreateBlocked {
			to = GoWaiting
		}
		r.create(a[0], to, c.time, a[1], a[2], m.g)
	case evGoCreateSyscall:
		r.create(a[0], GoSyscall, c.time, 0, 0, NoGoroutine)
		m.g = a[0]
	case evGoStatus, evGoStatusStack:
		return true, r.statusRun(c)
	case evGoDestroy, evGoDestroySyscall:
		g, err := r.current(c)
		if err != nil {
			return false, err
		}
		r.end(g, c.time)
		m.g = NoGoroutine
	case evGoStop, evGoBlock:
		g, err := r.current(c)
		if err != nil {
			return false, err
		}
		to := GoRunnable
		if c.typ == evGoBlock {
			to = GoWaiting
		}
		r.set(g, to, c.time, a[1], r.reasonOf(a[0]))
		m.g = NoGoroutine
	case evGoSyscallBegin:
		g, err := r.current(c)
		if err != nil {
			return false, err
		}
		if r.Elide != nil && g.user != 0 && r.elideSyscall(c, g) {
			break
		}
		r.set(g, GoSyscall, c.time, a[1], 0)
	case evGoSyscallEnd, evGoSyscallEndBlock:
		g, err := r.current(c)
		if err != nil {
			return false, err
		}
		if c.typ == evGoSyscallEnd {
			r.set(g, GoRunning, c.time, 0, 0)
		} else {
			r.set(g, GoRunnable, c.time, 0, 0)
			m.g = NoGoroutine
		}
	case evUserTaskBegin:
		r.emit(Event{Kind: TaskBegin, Time: c.time, G: m.g, Task: a[0], Parent: a[1], Name: a[2]})
	case evUserTaskEnd:
		r.emit(Event{Kind: TaskEnd, Time: c.time, G: m.g, Task: a[0]})
	case evUserRegionBegin, evUserRegionEnd:
		k := RegionBegin
		if c.typ == evUserRegionEnd {
			k = RegionEnd
		}
		r.emit(Event{Kind: k, Time: c.time, G: m.g, Task: a[0], Name: a[1]})
	case evUserLog:
		if !r.labelCategory(a[1]) {
			r.bump(c.time)
			break
		}
		r.emit(Event{Kind: Log, Time: c.time, G: m.g, Task: a[0], Name: a[2]})
	default:
		r.bump(c.time)
	}
	return true, nil
}

// elideSyscall offers the system call g begins at c to Elide when the
// thread's next event is its return with the P (see Reader.Elide), and
// reports whether Elide took it. If it did, c is left at the return, as
// handling the two events in turn would leave it, and g's latest stack is
// the call's, as if both had been returned.
func (r *Reader) elideSyscall(c *cursor, g *gState) bool {
	d := r.gen.data[:c.end]
	j := c.off + 1
	if j >= len(d) || d[c.off] != evGoSyscallEnd {
		return false
	}
	var dt uint64
	if d[j] < 0x80 {
		dt, j = uint64(d[j]), j+1
	} else {
		var ok bool
		if dt, j, ok = longVarint(d, j); !ok {
			return false // decode says what is wrong with it
		}
	}
	end := r.gen.mul(dt) + c.last
	// The times bump would give the two transitions.
	from := r.next(c.time)
	to := max(end, from+1)
	stack := c.args[1]
	if !r.Elide(g.id, g.user, stack, from, to) {
		return false
	}
	// The call's entry is the latest event; its return, not returned,
	// holds back no other thread's events before it.
	r.lastTs = from
	if stack != 0 {
		g.stack = r.gen.stackHash(stack)
	}
	c.off, c.last = j, end
	return true
}

// labelCategory reports whether string id of the generation is
// tracelabel.Category, the one category of log events returned.
func (r *Reader) labelCategory(id uint64) bool {
	if id >= uint64(len(r.gen.strings)) {
		return false
	}
	sp := r.gen.strings[id]
	return string(r.gen.data[sp.off:sp.end]) == tracelabel.Category
}

// succeeds reports whether seq is g's next sequence number.
func (r *Reader) succeeds(g *gState, seq uint64) bool {
	return g.seqGen == uint16(r.gen.num) && seq == uint64(g.seq)+1
}

// set moves g to state to at t, and says so.
func (r *Reader) set(g *gState, to GoState, t Time, stack uint64, reason uint32) {
	from := g.state
	g.state = to
	if stack != 0 {
		g.stack = r.gen.stackHash(stack)
	}
	r.transition(g, t, from, to, stack).Reason = reason
}

// current returns the goroutine running on c's thread.
func (r *Reader) current(c *cursor) (*gState, error) {
	m := c.m
	if g := m.rec; g != nil && g.id == m.g && m.g != 0 {
		return g, nil
	}
	if g := r.gs.Find(m.g); g != nil {
		m.rec = g
		return g, nil
	}
	return nil, fmt.Errorf("gotrace: generation %d: event type %d on a thread without a goroutine", r.gen.num, c.typ)
}

// goSwitch handles a coroutine switch: the named goroutine is unblocked
// and runs in place of the current one, which blocks or ends.
func (r *Reader) goSwitch(c *cursor) (bool, error) {
	next := r.gs.Find(c.args[0])
	if next == nil || next.state != GoWaiting || !r.succeeds(next, c.args[1]) {
		return false, nil
	}
	cur, err := r.current(c)
	if err != nil {
		return false, err
	}
	next.seq = uint32(c.args[1])
	r.set(next, GoRunnable, c.time, 0, 0)
	if c.typ == evGoSwitch {
		r.set(cur, GoWaiting, c.time, 0, 0)
	} else {
		r.end(cur, c.time)
	}
	r.set(next, GoRunning, c.time, 0, 0)
	c.m.run(next)
	return true, nil
}

// status handles a goroutine's status at a generation's start.
func (r *Reader) status(c *cursor) error {
	a := &c.args
	to, ok := goState(a[2])
	if !ok {
		return fmt.Errorf("gotrace: generation %d: goroutine %d has status %d", r.gen.num, a[0], a[2])
	}
	from := to
	g := r.gs.FindReported(a[0])
	if g == nil {
		if r.gen.num != r.first {
			return fmt.Errorf("gotrace: generation %d: status of goroutine %d never seen", r.gen.num, a[0])
		}
		g, from = r.add(a[0], to, true), GoUndetermined
	} else if g.state != to {
		return fmt.Errorf("gotrace: generation %d: goroutine %d reported %d, was %d", r.gen.num, a[0], to, g.state)
	}
	g.seqGen, g.seq = uint16(r.gen.num), 0
	if to == GoRunning || to == GoSyscall {
		if err := r.onThread(c, g, to); err != nil {
			return err
		}
	}
	stack := a[3] // 0 in a report without one, which has three arguments
	h := r.gen.stackHash(stack)
	if r.SkipSame && from == to && (stack == 0 || h == g.stack) {
		r.bump(c.time)
		if r.Enough != nil && r.Enough(c.time) {
			r.done = true // Next's next step returns io.EOF
		}
		return nil
	}
	if stack != 0 {
		g.stack = h
	}
	r.transition(g, c.time, from, to, stack)
	return nil
}

// onThread records g, reported running or in a system call (to), as its
// thread's goroutine.
func (r *Reader) onThread(c *cursor, g *gState, to GoState) error {
	a := &c.args
	switch {
	case to == GoRunning:
		c.m.run(g)
	case a[1] == r.mid(c):
		c.m.run(g)
	default:
		other, seen := r.ms[a[1]]
		if !seen {
			r.thread(a[1]).run(g)
		} else if other.g != g.id {
			return fmt.Errorf("gotrace: generation %d: goroutine %d in a system call on thread %d, which has goroutine %d", r.gen.num, g.id, a[1], other.g)
		}
	}
	return nil
}

// mid returns the M id of c's thread.
func (r *Reader) mid(c *cursor) uint64 { return r.gen.batches[c.bi].m }

// create adds a goroutine created by goroutine by, at its stack at, in
// state to at t, to start at stack.
func (r *Reader) create(id uint64, to GoState, t Time, stack, at, by uint64) {
	g := r.gs.Find(id)
	if g == nil {
		g = r.add(id, to, false)
	}
	g.state, g.seqGen, g.seq, g.stack = to, uint16(r.gen.num), 0, r.gen.stackHash(stack)
	e := r.transition(g, t, GoNotExist, to, stack)
	e.Creator, e.CreatorStack = by, at
}

// end removes goroutine g, which ended at t.
func (r *Reader) end(g *gState, t Time) {
	r.transition(g, t, g.state, GoNotExist, 0)
	r.gs.Delete(g)
}

// add records a new goroutine, reported in this round's status reports
// if reported (gTable.Add).
func (r *Reader) add(id uint64, state GoState, reported bool) *gState {
	g := r.gs.Add(id, reported)
	g.state = state
	return g
}

// thread returns thread m's state, creating it.
func (r *Reader) thread(m uint64) *mState {
	s := r.ms[m]
	if s == nil {
		s = &mState{g: NoGoroutine}
		r.ms[m] = s
	}
	return s
}

// MaxReasons bounds the table of wait reasons (the runtime has a few
// dozen): Event.Reason is below it, and a reason past it reads as none.
const MaxReasons = 1 << 10

// reasonOf returns the wait reason index of string id.
func (r *Reader) reasonOf(id uint64) uint32 {
	if id < uint64(len(r.why)) && r.why[id] != 0 {
		return r.why[id] - 1
	}
	s := r.str(id)
	i, ok := r.reason[s]
	if !ok && len(r.reasons) < MaxReasons {
		i = uint32(len(r.reasons))
		r.reasons = append(r.reasons, s)
		r.reason[s] = i
	}
	if id < uint64(len(r.gen.strings)) {
		for uint64(len(r.why)) <= id {
			r.why = append(r.why, 0)
		}
		r.why[id] = i + 1
	}
	return i
}

// str returns string id of the generation, interned across generations.
func (r *Reader) str(id uint64) string {
	if id < uint64(len(r.strSet)) && r.strSet[id] {
		return r.strs[id]
	}
	var s string
	if id < uint64(len(r.gen.strings)) {
		sp := r.gen.strings[id]
		b := r.gen.data[sp.off:sp.end]
		var ok bool
		if s, ok = r.intern[string(b)]; !ok {
			if len(r.intern) >= 1<<16 {
				clear(r.intern)
			}
			s = string(b)
			r.intern[s] = s
		}
	}
	if id < uint64(len(r.gen.strings)) {
		for uint64(len(r.strs)) <= id {
			r.strs, r.strSet = append(r.strs, ""), append(r.strSet, false)
		}
		r.strs[id], r.strSet[id] = s, true
	}
	return s
}

// maxEvent bounds the bytes of a timed event: its type, then its time
// delta and up to four arguments, uvarints of at most ten bytes.
const maxEvent = 1 + 5*binary.MaxVarintLen64

// longVarint decodes the uvarint at d[j:], of more than one byte, returning
// it and the index after it; false if it is cut off or longer than 64
// bits. With ten bytes of room it reads the first eight as one word,
// without a branch per byte: the status of a goroutine on no thread
// names thread ^0, ten bytes.
func longVarint(d []byte, j int) (uint64, int, bool) {
	if j >= 0 && j+8 <= len(d) {
		x := binary.LittleEndian.Uint64(d[j:])
		if ends := ^x & 0x8080808080808080; ends&0x80808080 != 0 { // ids, stacks, times
			v, n := fourBytes(x, ends)
			return v, j + n, true
		} else if ends != 0 { // five to eight bytes
			end := bits.TrailingZeros64(ends) // the last byte's high bit
			return sevenBits(x & (ends ^ (ends - 1))), j + end/8 + 1, true
		}
		if j+10 <= len(d) {
			if noThread(d, j, x) {
				return ^uint64(0), j + 10, true // the common ten bytes
			}
			v := sevenBits(x)
			if b := d[j+8]; b < 0x80 {
				return v | uint64(b)<<56, j + 9, true
			}
			if b := d[j+9]; b <= 1 { // the 64th bit, and the end
				return v | uint64(d[j+8]&0x7f)<<56 | uint64(b)<<63, j + 10, true
			}
			return 0, j, false
		}
	}
	if j < 0 || j > len(d) {
		return 0, j, false
	}
	v, n := binary.Uvarint(d[j:])
	if n <= 0 {
		return 0, j, false
	}
	return v, j + n, true
}

// fourBytes decodes the uvarint at the start of x, the word read from its
// first byte on, whose ends (^x's high bits) show it ends within four
// bytes: its value and length.
func fourBytes(x, ends uint64) (uint64, int) {
	x &= ends ^ (ends - 1) // its bytes, to its last
	return x&0x7f | x>>1&(0x7f<<7) | x>>2&(0x7f<<14) | x>>3&(0x7f<<21), bits.TrailingZeros64(ends)>>3 + 1
}

// noThread reports whether the ten bytes at d[j:], x its first eight,
// are the uvarint ^0: the thread of a goroutine on none. d holds them.
func noThread(d []byte, j int, x uint64) bool {
	return x == ^uint64(0) && d[j+8] == 0xff && d[j+9] == 1
}

// sevenBits joins the low seven bits of x's eight bytes, the first byte's
// lowest.
func sevenBits(x uint64) uint64 {
	return x&0x7f | x>>1&(0x7f<<7) | x>>2&(0x7f<<14) | x>>3&(0x7f<<21) |
		x>>4&(0x7f<<28) | x>>5&(0x7f<<35) | x>>6&(0x7f<<42) | x>>7&(0x7f<<49)
}
