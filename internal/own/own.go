package own

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/goid"
)

// Grace is how long the set keeps an id after its goroutine ended or left,
// with the time it did: the sampler writes a goroutine's samples seconds
// after their time (it reads the execution trace late, and a parked
// goroutine's run of ticks later still, more under load), and asks HadAt
// for each sample's time, so that the samples of the goroutine's last
// moments as the profiler's are left out however late they are written,
// and those after are the program's.
const Grace = time.Minute

// Margin is how long after it left an id is still the profiler's for
// HadAt and Has: the leaving is timed by the wall clock and the sampler's
// samples by the trace's clock mapped onto it, which agree to
// microseconds unless the clock is stepped.
const Margin = 100 * time.Millisecond

// MaxGone bounds the ids kept for their grace; past it, the earliest to
// have left go first.
const MaxGone = 256

// The bounds are variables for the tests.
var (
	grace   = Grace
	maxGone = MaxGone
)

// set is one immutable state of the registry.
type set struct {
	version uint64
	ids     []uint64 // sorted
	until   []int64  // per id: 0 while the profiler's, else the end of its grace (clock)
	upto    []int64  // per id: 0 while the profiler's, else when it left plus Margin (µs since the Unix epoch)
	next    int64    // the earliest end of a grace, 0 if none
	filter  idFilter // every id's bit: an id whose bit is clear is not in ids
}

// filterBits is the size of a set's filter: with a few hundred ids (a
// busy profiler's own, and MaxGone), most misses end at one clear bit.
const filterBits = 4096

// idFilter has the bit id%filterBits set for every id of a set, so that
// a miss, what the sampler asks of nearly every goroutine, is told
// without the binary search through ids and its ill-predicted branches.
type idFilter [filterBits / 64]uint64

// add sets id's bit.
func (f *idFilter) add(id uint64) { f[id%filterBits/64] |= 1 << (id % 64) }

// may reports whether id's bit is set: id may be in the set.
func (f *idFilter) may(id uint64) bool { return f[id%filterBits/64]&(1<<(id%64)) != 0 }

// gone is an id that left, the profiler's until until (clock).
type gone struct {
	id    uint64
	until int64
	upto  int64 // when it left plus Margin, µs since the Unix epoch
}

var (
	cur   atomic.Pointer[set] // read without a lock
	mu    sync.Mutex          // guards what follows, and every store to cur
	live  = map[uint64]int{}  // id -> its claims outstanding
	left  []gone              // in the order they left: their graces end in that order
	epoch = time.Now()
)

func init() { cur.Store(&set{}) }

// clock returns the monotonic time in nanoseconds since the package
// started, at least 1.
func clock() int64 { return int64(time.Since(epoch)) + 1 }

// Has reports whether the goroutine id is the profiler's now: running on
// a goroutine started by Go or inside Enter, or within Margin after either
// ended. It takes no lock and does not allocate.
func Has(id uint64) bool {
	u, ok := upto(id)
	return ok && (u == 0 || time.Now().UnixMicro() <= u)
}

// HadAt reports whether the goroutine id was the profiler's at ts,
// microseconds since the Unix epoch: it is now, or it left within Grace
// and ts is before it left plus Margin. A goroutine is the profiler's
// from before its first event the sampler can read (Go) or, for one that
// Enter made the profiler's, for the whole of its time that ended by
// leaving: a handler's samples before Enter are its request's work. It
// takes no lock and does not allocate.
func HadAt(id, ts uint64) bool {
	u, ok := upto(id)
	return ok && (u == 0 || int64(ts) <= u)
}

// upto returns, for a goroutine id in the set, 0 while it is the
// profiler's, else when it left plus Margin; ok is false for an id not in
// the set. Has reads the clock only after it, for an id that left: it is
// asked of every goroutine the trace backend meets.
func upto(id uint64) (u int64, ok bool) {
	s := cur.Load()
	if !s.filter.may(id) {
		return 0, false
	}
	i, ok := slices.BinarySearch(s.ids, id)
	if !ok {
		return 0, false
	}
	return s.upto[i], true
}

// Version returns a number that changes whenever the set changes: an id
// added, or an id's grace ended. A caller may keep Has's answers while
// Version returns the same number.
func Version() uint64 {
	s := cur.Load()
	if s.next != 0 && clock() >= s.next {
		mu.Lock()
		if s = cur.Load(); s.next != 0 && clock() >= s.next {
			publish()
		}
		mu.Unlock()
		s = cur.Load()
	}
	return s.version
}

// Go starts f on a new goroutine that is the profiler's for its whole life
// (and Grace after). It returns once the goroutine is registered, so that
// the goroutine is known before any event of its life can be parsed.
func Go(f func()) {
	ready := make(chan struct{})
	go func() {
		leave := Enter()
		defer leave()
		close(ready)
		f()
	}()
	<-ready
}

// Enter makes the calling goroutine the profiler's until leave is called
// (and Grace after), for the profiler's work on a goroutine it did not
// start, such as an HTTP handler's. Calls nest: the goroutine stays the
// profiler's until every Enter has left. leave is idempotent.
func Enter() (leave func()) {
	id := goid.Current()
	if id == 0 {
		return func() {}
	}
	claim(id)
	var once sync.Once
	return func() { once.Do(func() { release(id) }) }
}

// Claim adds one claim of the profiler on goroutine id, another
// goroutine than the caller's (package ownnet claims those of a
// connection's transport).
func Claim(id uint64) { claim(id) }

// Release ends one claim that Claim made on goroutine id.
func Release(id uint64) { release(id) }

// SetGrace sets how long an id stays known once its goroutine is no
// longer the profiler's, for tests, and returns a func that restores it.
func SetGrace(d time.Duration) (restore func()) {
	mu.Lock()
	defer mu.Unlock()
	old := grace
	grace = d
	return func() {
		mu.Lock()
		defer mu.Unlock()
		grace = old
	}
}

// Claims returns the claims outstanding on goroutine id.
func Claims(id uint64) int {
	mu.Lock()
	defer mu.Unlock()
	return live[id]
}

// claim adds one claim of the profiler on goroutine id.
func claim(id uint64) {
	mu.Lock()
	defer mu.Unlock()
	live[id]++
	if live[id] == 1 {
		publish()
	}
}

// release ends one claim of the profiler on goroutine id; once none is
// left, its grace begins.
func release(id uint64) {
	mu.Lock()
	defer mu.Unlock()
	if live[id]--; live[id] > 0 {
		return
	}
	delete(live, id)
	left = append(left, gone{id, clock() + int64(grace), time.Now().Add(Margin).UnixMicro()})
	publish()
}

// publish makes the set of the live ids and the ids within their grace
// the one Has reads, with a new version. mu is held.
func publish() {
	now := clock()
	i := 0
	for i < len(left) && (left[i].until <= now || len(left)-i > maxGone) {
		i++
	}
	if i > 0 {
		left = append(left[:0], left[i:]...)
	}
	es := make([]gone, 0, len(live)+len(left))
	for id := range live {
		es = append(es, gone{id: id})
	}
	es = append(es, left...)
	// By id; for one id, live first, then the latest grace: the one kept.
	slices.SortFunc(es, func(a, b gone) int {
		if a.id != b.id {
			return cmp.Compare(a.id, b.id)
		}
		return cmp.Compare(lasts(b.until), lasts(a.until))
	})
	s := &set{version: cur.Load().version + 1, ids: make([]uint64, 0, len(es)),
		until: make([]int64, 0, len(es)), upto: make([]int64, 0, len(es))}
	for i, e := range es {
		if i > 0 && es[i-1].id == e.id {
			continue
		}
		s.ids = append(s.ids, e.id)
		s.filter.add(e.id)
		s.until = append(s.until, e.until)
		s.upto = append(s.upto, e.upto)
		if e.until != 0 && (s.next == 0 || e.until < s.next) {
			s.next = e.until
		}
	}
	cur.Store(s)
}

// lasts orders graces by their end, a live id's (0) last.
func lasts(until int64) int64 {
	if until == 0 {
		return math.MaxInt64
	}
	return until
}
