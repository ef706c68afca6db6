package gotrace

import (
	"bufio"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
)

// ErrVersion says the trace is not a Go 1.26 trace: read it with
// golang.org/x/exp/trace.
var ErrVersion = errors.New("gotrace: not a go 1.26 execution trace")

const header = "go 1.26 trace\x00\x00\x00"

// Reader reads a trace's events in time order.
type Reader struct {
	// Pace, if set, is called after each batch of a generation is read: a
	// live trace's generation arrives whole once the next begins (up to a
	// second of the runtime's buffers at once), and a caller can spread
	// reading it as it spreads the events.
	Pace func()
	// SkipSame, if set, leaves out the status reports that say what the
	// goroutine's latest event said: the state it is in, with no stack or
	// the same stack, frame for frame, as the latest that showed one. The
	// runtime reports every goroutine's status at each generation, and a
	// program of many parked goroutines is mostly such reports; a reader
	// that keeps each goroutine's state and latest stack loses nothing.
	SkipSame bool
	// Enough, if set, is asked at each status report SkipSame leaves
	// out, with its time, whether the caller has read all it needs:
	// once it says so, the trace ends there (Next returns io.EOF). As
	// the runtime stops tracing it reports every goroutine's status, a
	// burst past the moment a profiler's Stop needs the trace up to.
	Enough func(Time) bool
	// Elide, if set, is asked about each system call that returns on
	// the thread and P it began on with nothing between on that thread
	// (a GoSyscallBegin whose thread's next event is its GoSyscallEnd):
	// goroutine id, numbered user (SetUser, never 0), entered it at from
	// with stack (0: none) and left it at to, as the two transitions'
	// times would be. If it says true, neither transition is returned:
	// the caller has folded the call in itself, and the goroutine stays
	// running. Most system calls of a busy program are such, and most
	// take microseconds.
	Elide func(id uint64, user uint32, stack uint64, from, to Time) bool
	// Start, if set, is asked about each start of a runnable goroutine
	// (Runnable to Running): goroutine id, numbered user (SetUser, never
	// 0), at the time the transition would have. If it says true, the
	// transition is not returned: the caller has folded it in itself.
	Start func(id uint64, user uint32, at Time) bool

	br    *bufio.Reader // the trace, unless src
	src   Generations   // the trace handed over in memory, if not nil
	piece []byte        // src's generation being read
	gen   generation

	ms     map[uint64]*mState // threads, by M id
	gs     gTable             // live goroutines
	curs   []cursor           // one per thread with events in this generation
	heap   []*cursor          // curs with events left, by the time of the next
	byM    map[uint64]int     // index in curs, by M id, for this generation
	si     int                // next CPU sample
	out    [3]Event           // events of the step, returned one by one
	outG   [3]*gState         // the goroutine of each transition in out, nil for other events
	nout   int
	iout   int
	lastTs Time
	first  uint64 // the first generation's number
	done   bool
	err    error    // an error reading the generation, returned after its Sync
	strs   []string // this generation's strings met so far, by id
	strSet []bool
	intern map[string]string // strings across generations
	// reasons are the wait reasons met, by Event.Reason; why maps this
	// generation's string ids onto them (+1; 0: not yet).
	reasons []string
	reason  map[string]uint32
	why     []uint32
	frames  []Frame
}

// mState is a thread's current goroutine, by id, and the record last
// found for it, which is the goroutine's while its id matches (an ended
// goroutine's record has id 0 until a new goroutine takes it).
type mState struct {
	g   uint64
	rec *gState
}

// run makes g the goroutine on the thread.
func (m *mState) run(g *gState) { m.g, m.rec = g.id, g }

// gState is a goroutine's state, the sequence number of its latest start
// or unblock, which orders the events other threads wrote about it, the
// hash of its latest stack (see Reader.SkipSame) and the caller's number
// for it (Reader.SetUser). A sequence number is the count of the
// goroutine's starts and unblocks in its generation: one past 1<<32 does
// not follow the one before, so a trace that had one would end in an
// error; a goroutine would need billions of them in a generation. The
// generation of seq is its number's low 16 bits: every live goroutine's
// status is reported at each generation's start, which sets it.
type gState struct {
	id     uint64
	stack  uint64 // generation.stackHash of its latest event with a stack; 0 none
	seq    uint32
	user   uint32 // Reader.SetUser's number, 0 none
	next   uint32 // gTable: the number plus one of the record reported after it in its latest round, 0 none
	seqGen uint16
	state  GoState
}

// cursor walks one thread's batches of the generation.
type cursor struct {
	m    *mState
	bi   int // current batch, index in generation.batches
	tail int // the thread's last batch, while linking them
	off  int // next event in the batch's data
	end  int // the batch's end in the data
	last Time
	// the event at the cursor
	typ  byte
	time Time
	args [4]uint64
}

// NewReader reads the trace header from r. It returns ErrVersion if the
// trace is not a Go 1.26 trace. If r is a Generations, the Reader takes
// its generations through it and parses them where they lie (r is left
// unread for another reader, such as golang.org/x/exp/trace's, after
// ErrVersion).
func NewReader(r io.Reader) (*Reader, error) {
	if src, ok := r.(Generations); ok {
		return newGenReader(src)
	}
	br := bufio.NewReaderSize(r, 64<<10)
	h, err := br.Peek(len(header))
	if err != nil {
		return nil, fmt.Errorf("gotrace: reading header: %w", noEOF(err))
	}
	if string(h) != header {
		return nil, ErrVersion
	}
	br.Discard(len(header))
	return newReader(br), nil
}

// newReader returns a Reader of br, past the header.
func newReader(br *bufio.Reader) *Reader {
	return &Reader{
		gen:     generation{seed: maphash.MakeSeed()},
		br:      br,
		ms:      make(map[uint64]*mState),
		byM:     make(map[uint64]int),
		intern:  make(map[string]string),
		reasons: []string{""},
		reason:  map[string]uint32{"": 0},
	}
}

// Next reads the next event into ev; io.EOF after the last.
func (r *Reader) Next(ev *Event) error {
	e, err := r.NextEvent()
	if err != nil {
		return err
	}
	*ev = *e
	return nil
}

// NextEvent returns the next event, io.EOF after the last. The event lies
// in the Reader, which reuses it: it holds until the next call to Next or
// NextEvent.
func (r *Reader) NextEvent() (*Event, error) {
	for r.iout == r.nout {
		r.iout, r.nout = 0, 0
		if err := r.step(); err != nil {
			return nil, err
		}
	}
	e := &r.out[r.iout]
	if g := r.outG[r.iout]; g != nil {
		// SetUser may have numbered it since the step, on an event
		// before this one.
		e.User = g.user
	}
	r.iout++
	return e, nil
}

// Stack returns the frames of stack id of the current generation,
// innermost first, in a buffer the next call reuses; nil if there is no
// such stack.
func (r *Reader) Stack(id uint64) []Frame {
	r.frames = r.gen.stack(id, r.frames, r.str)
	return r.frames
}

// String returns string id of the current generation (an Event's Name),
// "" if there is no such string.
func (r *Reader) String(id uint64) string { return r.str(id) }

// SetUser gives goroutine id the number v, which the events of its
// transitions carry from then on (Event.User) until it ends, and reports
// whether the reader knows the goroutine: a caller that keeps a record of
// each goroutine finds it by the number instead of by id.
func (r *Reader) SetUser(id uint64, v uint32) bool {
	g := r.find(id)
	if g == nil {
		return false
	}
	g.user = v
	return true
}

// User returns the number SetUser gave goroutine id, 0 if none (or if the
// reader does not know it).
func (r *Reader) User(id uint64) uint32 {
	if g := r.find(id); g != nil {
		return g.user
	}
	return 0
}

// find returns goroutine id's record, nil if it has none; the latest
// event's goroutine, which a caller most often asks about, without a
// search.
func (r *Reader) find(id uint64) *gState {
	if r.iout > 0 {
		if g := r.outG[r.iout-1]; g != nil && g.id == id && id != 0 {
			return g
		}
	}
	return r.gs.Find(id)
}

// Close gives back the goroutines' records, which lie off the Go heap
// (package offheap): a Reader left without Close keeps them mapped. Next
// returns io.EOF after Close.
func (r *Reader) Close() error {
	r.gs.Release()
	for _, m := range r.ms {
		m.rec = nil
	}
	r.outG = [len(r.outG)]*gState{}
	r.iout, r.nout = 0, 0
	r.heap = r.heap[:0]
	r.done = true
	return nil
}

// Clock returns the current generation's clock snapshot: after a Sync, the
// one the Sync starts.
func (r *Reader) Clock() (Clock, bool) { return r.gen.clock, r.gen.hasSync }

// Threads returns how many OS threads the trace has shown so far; the
// reader keeps a state for each.
func (r *Reader) Threads() int { return len(r.ms) }

// Strings counts the distinct strings (function and file names, wait
// reasons, labels) the Reader keeps across generations: one more is a
// string the process had not shown before.
func (r *Reader) Strings() int { return len(r.intern) }

// IDSlots counts the slots of the generation's tables by stack and string
// id, reused from generation to generation: they grow for a generation
// that numbers more stacks or strings than any before.
func (r *Reader) IDSlots() int { return cap(r.gen.stacks) + cap(r.gen.strings) }

// BufferCaps sums the capacities of the buffers a generation is read
// into (its batches' data, their list, its CPU samples, its stacks'
// sizes, hashes and scratch), reused from generation to generation: the
// sum changes when a generation larger than any before grows one, or when
// one is let go.
func (r *Reader) BufferCaps() int {
	g := &r.gen
	return cap(g.data) + cap(g.batches) + cap(g.samples) + cap(g.nframes) + cap(g.hashes) + cap(g.pcs)
}

// Reason returns the text of wait reason i (an Event.Reason).
func (r *Reader) Reason(i uint32) string {
	if int(i) < len(r.reasons) {
		return r.reasons[i]
	}
	return ""
}

// emit queues an event of the step, at a time after every event before
// (golang.org/x/exp/trace does the same).
func (r *Reader) emit(e Event) {
	e.Time = r.bump(e.Time)
	*r.slot(nil) = e
}

// slot queues an event of the step and returns it to be filled in place:
// a transition of goroutine g, whose number (SetUser) the event takes as
// it is returned, or with g nil any other event. Its Time must come from
// bump.
func (r *Reader) slot(g *gState) *Event {
	r.outG[r.nout] = g
	r.nout++
	return &r.out[r.nout-1]
}

// transition queues goroutine g's move at t from one state to another,
// with its stack (0: none), and returns the event for the fields of its
// kind.
func (r *Reader) transition(g *gState, t Time, from, to GoState, stack uint64) *Event {
	e := r.slot(g)
	*e = Event{}
	e.Kind, e.Time, e.G, e.From, e.To, e.Stack = Transition, r.bump(t), g.id, from, to, stack
	return e
}

// bump returns t, or just after the latest event's time if t is not after
// it, and makes it the latest.
func (r *Reader) bump(t Time) Time {
	t = r.next(t)
	r.lastTs = t
	return t
}

// next returns the time bump would give an event at t, without taking it.
func (r *Reader) next(t Time) Time { return max(t, r.lastTs+1) }

// step handles the next event of the trace: a generation's start, a CPU
// sample or the next event of a thread.
func (r *Reader) step() error {
	if r.done {
		return io.EOF
	}
	if len(r.heap) == 0 && (r.si >= len(r.gen.samples) || r.err != nil) {
		// The generation is done, or reading the next failed (its
		// samples are not this generation's): nextGen returns the error.
		return r.nextGen()
	}
	if r.si < len(r.gen.samples) && (len(r.heap) == 0 || r.gen.samples[r.si].time < r.heap[0].time) {
		s := r.gen.samples[r.si]
		r.si++
		r.emit(Event{Kind: Sample, Time: s.time, G: s.g, Stack: s.stack})
		return nil
	}
	if ok, err := r.advance(0); ok || err != nil {
		return err
	}
	// The first thread's event waits for another thread's: take the
	// first, in time order, that can go.
	slices.SortFunc(r.heap, func(a, b *cursor) int { return cmpTime(a.time, b.time) })
	for i := 1; i < len(r.heap); i++ {
		if ok, err := r.advance(i); ok || err != nil {
			return err
		}
	}
	return fmt.Errorf("gotrace: generation %d: no thread's next event can happen", r.gen.num)
}

func cmpTime(a, b Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nextGen reads the next generation and starts it with a Sync; at the end
// of the trace, a last Sync.
func (r *Reader) nextGen() error {
	if r.err != nil {
		return r.err
	}
	var err error
	if r.src != nil {
		err = r.readGen()
	} else {
		err = r.gen.read(r.br, r.Pace)
	}
	if err == io.EOF {
		r.done = true
		r.emit(Event{Kind: Sync, Time: r.lastTs})
		return nil
	}
	if err != nil {
		r.err = fmt.Errorf("gotrace: %w", err)
		r.emit(Event{Kind: Sync, Time: r.lastTs})
		return nil
	}
	if r.first == 0 {
		r.first = r.gen.num
	}
	if err := r.install(); err != nil {
		return err
	}
	r.emit(Event{Kind: Sync, Time: r.gen.mul(r.gen.minTs)})
	return nil
}

// install sets up a cursor per thread over the new generation's batches.
func (r *Reader) install() error {
	r.si = 0
	r.gs.NextRound()
	// The strings go too, not only their marks: a generation of many
	// (a burst of label events) would otherwise stay reachable from the
	// array until a generation of as many overwrote it.
	clear(r.strSet)
	clear(r.strs)
	r.strs, r.strSet = r.strs[:0], r.strSet[:0]
	clear(r.why)
	clear(r.byM)
	r.curs = r.curs[:0]
	bs := r.gen.batches
	for i := range bs {
		ci, ok := r.byM[bs[i].m]
		if !ok {
			ci = len(r.curs)
			r.byM[bs[i].m] = ci
			r.curs = append(r.curs, cursor{m: r.thread(bs[i].m), bi: i, tail: i, off: bs[i].off, end: bs[i].end})
			continue
		}
		c := &r.curs[ci] // link the thread's batches in order
		bs[c.tail].next, c.tail = i, i
	}
	r.heap = r.heap[:0]
	for i := range r.curs {
		c := &r.curs[i]
		c.last = r.gen.mul(bs[c.bi].time)
		ok, err := r.decode(c)
		if err != nil {
			return err
		}
		if ok {
			r.heap = heapInsert(r.heap, c)
		}
	}
	return nil
}
