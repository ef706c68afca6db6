package groundtruth

import (
	"sort"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
)

// State is what a goroutine does in a phase, as a profile can tell it.
type State uint8

// States of a phase.
const (
	Active  State = iota // running or runnable: on CPU or wanting it
	Waiting              // blocked (sleep, channel, lock, network)
	Syscall              // in a blocking system call
)

// String returns the state's name in lower case.
func (s State) String() string {
	switch s {
	case Active:
		return "active"
	case Waiting:
		return "waiting"
	case Syscall:
		return "syscall"
	}
	return "?"
}

// phase is one stretch of a goroutine in one function.
type phase struct {
	fn         string // the phase function, e.g. "spinA"
	state      State
	start, end int64   // wall time, ns since the epoch
	work       float64 // units of equal CPU cost done, 0 if not counted
	// cpu0 and cpu are the thread's CPU time at the phase's start and
	// spent in it, -1 if not read (goroutines not locked, counted work).
	cpu0, cpu time.Duration
}

// mark is a reading of a locked goroutine's thread CPU time.
type mark struct {
	wall int64 // ns since the epoch
	cpu  time.Duration
}

// markEvery is how often a locked goroutine whose phases count work (the
// spinner, whose phases last a millisecond or two) reads its thread's CPU
// time. The reading is a system call, and CPU samples gather at system calls
// on a loaded machine: reading it at each of those phases would put a
// visible share of the samples in the workload's own bookkeeping.
const markEvery = int64(100 * time.Millisecond)

// log is one goroutine's record of its phases, written by that goroutine
// only and read after it has ended.
type log struct {
	role   string
	id     uint64
	locked bool // on its own thread: its CPU time is read
	phases []phase
	marks  []mark
	cur    phase
}

// enter ends the current phase, if any, and begins fn.
func (l *log) enter(fn string, st State) { l.enterWork(fn, st, 0) }

// enterWork begins fn, which does work units of equal CPU cost. A locked
// goroutine whose phases count no work reads its thread's CPU time at each
// phase: the time a phase takes on the wall holds the time the system ran
// other threads, which is no phase's CPU time.
func (l *log) enterWork(fn string, st State, work int) {
	now, cpu := time.Now().UnixNano(), time.Duration(-1)
	if l.locked && work == 0 {
		cpu = cputime.Thread()
	}
	l.close(now, cpu)
	l.cur = phase{fn: fn, state: st, start: now, work: float64(work), cpu0: cpu, cpu: -1}
	if l.locked && (len(l.marks) == 0 || now-l.marks[len(l.marks)-1].wall >= markEvery) {
		l.marks = append(l.marks, mark{now, cputime.Thread()})
	}
}

// close ends the current phase at now, with the thread's CPU time cpu (-1 if
// not read).
func (l *log) close(now int64, cpu time.Duration) {
	if l.cur.fn == "" {
		return
	}
	l.cur.end = now
	if cpu >= 0 && l.cur.cpu0 >= 0 {
		l.cur.cpu = cpu - l.cur.cpu0
	}
	l.phases = append(l.phases, l.cur)
	l.cur = phase{}
}

// finish ends the record when the goroutine ends.
func (l *log) finish() {
	now, cpu := time.Now().UnixNano(), time.Duration(-1)
	if l.locked {
		cpu = cputime.Thread()
		l.marks = append(l.marks, mark{now, cpu})
	}
	l.close(now, cpu)
}

// at returns the phase the goroutine was in at wall time ns, or nil.
func (l *log) at(ns int64) *phase {
	i := sort.Search(len(l.phases), func(i int) bool { return l.phases[i].end > ns })
	if i < len(l.phases) && l.phases[i].start <= ns {
		return &l.phases[i]
	}
	return nil
}

// cpuAt returns the thread CPU time at wall time ns, interpolated between
// the marks around it.
func (l *log) cpuAt(ns int64) float64 {
	m := l.marks
	i := sort.Search(len(m), func(i int) bool { return m[i].wall >= ns })
	switch {
	case i == 0:
		return float64(m[0].cpu)
	case i == len(m):
		return float64(m[len(m)-1].cpu)
	}
	a, b := m[i-1], m[i]
	return float64(a.cpu) + float64(b.cpu-a.cpu)*float64(ns-a.wall)/float64(b.wall-a.wall)
}

// truth sums the wall time spent per function and per state within the
// window [from, to] (ns). The CPU-mode shares (active) are those of the
// active phases alone, a goroutine uses the CPU only in those: by their
// work where every active phase counts it in units of one cost (the
// spinner's), else by the thread CPU time read at their ends (locked
// goroutines), else by their wall time, which also holds the time spent
// preempted. cpu is the thread CPU time in the window, for locked
// goroutines.
type truth struct {
	wall, active map[string]float64 // by phase function
	state        map[State]float64  // wall time by state
	wallSum      float64
	activeSum    float64
	cpu          float64 // ns
}

func (l *log) truth(from, to int64) truth {
	t := truth{wall: map[string]float64{}, active: map[string]float64{}, state: map[State]float64{}}
	byWork := true
	for _, p := range l.phases {
		if p.state == Active && p.work == 0 {
			byWork = false
		}
	}
	for _, p := range l.phases {
		a, b := max(p.start, from), min(p.end, to)
		if b <= a {
			continue
		}
		d := float64(b - a)
		t.wall[p.fn] += d
		t.state[p.state] += d
		t.wallSum += d
		if p.state == Active {
			switch {
			case byWork:
				d = p.work * d / float64(p.end-p.start)
			case p.cpu >= 0:
				d = float64(p.cpu) * d / float64(p.end-p.start)
			}
			t.active[p.fn] += d
			t.activeSum += d
		}
	}
	if l.locked && len(l.marks) > 0 {
		t.cpu = l.cpuAt(to) - l.cpuAt(from)
	}
	return t
}
