package sampler

import (
	"bufio"
	"errors"
	"io"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/tracelabel"
)

// source is the trace as the state machine reads it: goroutine
// transitions, CPU samples and generations, in time order, and the frames
// of each generation's stacks.
type source interface {
	// NextEvent returns the next event, io.EOF after the last, in a
	// buffer the next call may reuse.
	NextEvent() (*gotrace.Event, error)
	// Stack returns stack id's frames, innermost first, in a buffer the
	// next call may reuse.
	Stack(id uint64) []gotrace.Frame
	// Reason returns the text of a wait reason (gotrace.Event.Reason).
	Reason(i uint32) string
	// String returns a string of the generation (gotrace.Event.Name).
	String(id uint64) string
	// Clock returns the clock snapshot of the generation the latest Sync
	// began, if it has one.
	Clock() (gotrace.Clock, bool)
	// SetUser gives a goroutine a number that its transitions carry from
	// then on (gotrace.Event.User), and reports whether the source knows
	// the goroutine; User returns the number, 0 if none. A source may keep
	// none.
	SetUser(id uint64, v uint32) bool
	User(id uint64) uint32
}

// newSource reads a trace with gotrace if it knows its version (Go 1.26),
// else with golang.org/x/exp/trace. A trace handed over a generation at a
// time (gotrace.Generations, the live trace's pipe) is parsed where it
// lies; another is read through a buffer.
func newSource(r io.Reader) (source, error) {
	if _, ok := r.(gotrace.Generations); !ok {
		r = bufio.NewReaderSize(r, 64<<10)
	}
	rd, err := gotrace.NewReader(r)
	if err == nil {
		// The state machine keeps each goroutine's state and latest stack:
		// a status report that repeats them says nothing new.
		rd.SkipSame = true
		return rd, nil
	}
	if !errors.Is(err, gotrace.ErrVersion) {
		return nil, err
	}
	x, err := xtrace.NewReader(r)
	if err != nil {
		return nil, err
	}
	return newXSource(x), nil
}

// xsource reads a trace with golang.org/x/exp/trace, for the versions
// gotrace does not know.
type xsource struct {
	rd      *xtrace.Reader
	stacks  []xtrace.Stack // this generation's, by id - 1
	ids     map[xtrace.Stack]uint64
	frames  []gotrace.Frame
	strs    []string // this generation's strings of events, by id - 1
	reasons []string // by index
	reason  map[string]uint32
	clock   gotrace.Clock
	clocked bool
	ev      gotrace.Event // NextEvent's
}

func newXSource(rd *xtrace.Reader) *xsource {
	return &xsource{
		rd:      rd,
		ids:     make(map[xtrace.Stack]uint64),
		reasons: []string{""},
		reason:  map[string]uint32{"": 0},
	}
}

// NextEvent reads the next event the state machine needs.
func (x *xsource) NextEvent() (*gotrace.Event, error) {
	if err := x.next(&x.ev); err != nil {
		return nil, err
	}
	return &x.ev, nil
}

// next fills out with the next event the state machine needs.
func (x *xsource) next(out *gotrace.Event) error {
	for {
		ev, err := x.rd.ReadEvent()
		if err != nil {
			return err
		}
		*out = gotrace.Event{Time: gotrace.Time(ev.Time())}
		switch ev.Kind() {
		case xtrace.EventSync:
			x.stacks = x.stacks[:0]
			clear(x.ids)
			clear(x.strs)
			x.strs = x.strs[:0]
			out.Kind = gotrace.Sync
			x.clock, x.clocked = gotrace.Clock{}, false
			if cs := ev.Sync().ClockSnapshot; cs != nil {
				x.clock, x.clocked = gotrace.Clock{Trace: gotrace.Time(cs.Trace), Wall: cs.Wall.UnixNano()}, true
			}
			return nil
		case xtrace.EventStackSample:
			out.Kind, out.G, out.Stack = gotrace.Sample, uint64(ev.Goroutine()), x.id(ev.Stack())
			return nil
		case xtrace.EventStateTransition:
			tr := ev.StateTransition()
			if tr.Resource.Kind != xtrace.ResourceGoroutine {
				continue
			}
			from, to := tr.Goroutine()
			out.Kind, out.G = gotrace.Transition, uint64(tr.Resource.Goroutine())
			out.From, out.To = xstate(from), xstate(to)
			out.Stack, out.Reason = x.id(tr.Stack), x.reasonOf(tr.Reason)
			if from == xtrace.GoNotExist {
				out.Creator = uint64(ev.Goroutine())
				out.CreatorStack = x.id(ev.Stack())
			}
			return nil
		case xtrace.EventTaskBegin, xtrace.EventTaskEnd:
			tk := ev.Task()
			out.Kind, out.G, out.Task = gotrace.TaskEnd, uint64(ev.Goroutine()), uint64(tk.ID)
			if ev.Kind() == xtrace.EventTaskBegin {
				out.Kind, out.Name = gotrace.TaskBegin, x.str(tk.Type)
				if tk.Parent != xtrace.NoTask {
					out.Parent = uint64(tk.Parent)
				}
			}
			return nil
		case xtrace.EventRegionBegin, xtrace.EventRegionEnd:
			rg := ev.Region()
			out.Kind = gotrace.RegionBegin
			if ev.Kind() == xtrace.EventRegionEnd {
				out.Kind = gotrace.RegionEnd
			}
			out.G, out.Task, out.Name = uint64(ev.Goroutine()), uint64(rg.Task), x.str(rg.Type)
			return nil
		case xtrace.EventLog:
			lg := ev.Log()
			if lg.Category != tracelabel.Category {
				continue
			}
			out.Kind, out.G, out.Task, out.Name = gotrace.Log, uint64(ev.Goroutine()), uint64(lg.Task), x.str(lg.Message)
			return nil
		}
	}
}

// id numbers a stack of the generation.
func (x *xsource) id(s xtrace.Stack) uint64 {
	if s == xtrace.NoStack {
		return 0
	}
	if id, ok := x.ids[s]; ok {
		return id
	}
	x.stacks = append(x.stacks, s)
	x.ids[s] = uint64(len(x.stacks))
	return uint64(len(x.stacks))
}

// str numbers a string of the generation's events.
func (x *xsource) str(s string) uint64 {
	x.strs = append(x.strs, s)
	return uint64(len(x.strs))
}

// String returns string id of the generation's events.
func (x *xsource) String(id uint64) string {
	if id == 0 || id > uint64(len(x.strs)) {
		return ""
	}
	return x.strs[id-1]
}

// reasonOf numbers a wait reason; 0, none, past gotrace.MaxReasons of
// them, the bound both sources keep (a goroutine record holds one in
// reasonBits).
func (x *xsource) reasonOf(s string) uint32 {
	i, ok := x.reason[s]
	if !ok && len(x.reasons) < gotrace.MaxReasons {
		i = uint32(len(x.reasons))
		x.reasons = append(x.reasons, s)
		x.reason[s] = i
	}
	return i
}

// Reason returns the text of wait reason i.
func (x *xsource) Reason(i uint32) string {
	if int(i) < len(x.reasons) {
		return x.reasons[i]
	}
	return ""
}

// Clock returns the latest generation's clock snapshot.
func (x *xsource) Clock() (gotrace.Clock, bool) { return x.clock, x.clocked }

// SetUser keeps no number: the backend finds the goroutines of a trace
// read with golang.org/x/exp/trace by id.
func (x *xsource) SetUser(uint64, uint32) bool { return false }

// User returns 0: xsource keeps no numbers.
func (x *xsource) User(uint64) uint32 { return 0 }

// Stack returns stack id's frames.
func (x *xsource) Stack(id uint64) []gotrace.Frame {
	x.frames = x.frames[:0]
	if id == 0 || id > uint64(len(x.stacks)) {
		return x.frames
	}
	for f := range x.stacks[id-1].Frames() {
		x.frames = append(x.frames, gotrace.Frame{PC: f.PC, Func: f.Func, File: f.File, Line: f.Line})
	}
	return x.frames
}

func xstate(s xtrace.GoState) gotrace.GoState {
	switch s {
	case xtrace.GoNotExist:
		return gotrace.GoNotExist
	case xtrace.GoRunnable:
		return gotrace.GoRunnable
	case xtrace.GoRunning:
		return gotrace.GoRunning
	case xtrace.GoWaiting:
		return gotrace.GoWaiting
	case xtrace.GoSyscall:
		return gotrace.GoSyscall
	}
	return gotrace.GoUndetermined
}
