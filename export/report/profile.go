package report

import (
	"github.com/gotachyon/profiler/internal/leaks"
	"github.com/gotachyon/profiler/tachyon"
)

// Class is the part of the samples a state belongs to, as the views split
// them: a View shows one or two classes, or all of them.
type Class uint8

// The classes, in the order cells use. There is one per state: the states
// are tachyon.State's, and on CPU is tachyon.State.OnCPU.
const (
	OnCPU      Class = iota // on a CPU: running
	WaitingCPU              // runnable: ready, waiting for a CPU (a P, or the OS)
	OffCPU                  // blocked, under its wait reason's frame
	Other                   // unknown state: only in the view of all samples
	InSyscall               // in a system call: in the kernel, off the CPU
	NumClasses = 5
)

// ClassOf returns the class of a state.
func ClassOf(s tachyon.State) Class {
	switch {
	case s.OnCPU():
		return OnCPU
	case s == tachyon.Runnable:
		return WaitingCPU
	case s == tachyon.Blocked:
		return OffCPU
	case s == tachyon.Syscall:
		return InSyscall
	default:
		return Other
	}
}

// busyState reports whether a goroutine in state s uses or wants a CPU:
// it is on one, or runnable. Lanes and groups are ranked by these samples
// (busy).
func busyState(s tachyon.State) bool {
	c := ClassOf(s)
	return c == OnCPU || c == WaitingCPU
}

// View is what the flame graph and the tables show: the samples of some
// classes (View.Classes), or all samples.
type View uint8

// The views.
const (
	ViewOnCPU   View = iota // on CPU: running
	ViewWaiting             // waiting for CPU: runnable
	ViewOffCPU              // off CPU: blocked, by wait reason, and in system calls
	ViewAll                 // every sample
)

// Classes returns the classes view v shows, a bit per Class.
func (v View) Classes() uint32 {
	switch v {
	case ViewOnCPU:
		return 1 << OnCPU
	case ViewWaiting:
		return 1 << WaitingCPU
	case ViewOffCPU:
		return 1<<OffCPU | 1<<InSyscall
	}
	return 1<<NumClasses - 1
}

var viewNames = [...]string{"on CPU", "waiting for CPU", "off CPU", "all"}

// String returns the view's name as the page shows it.
func (v View) String() string {
	if int(v) < len(viewNames) {
		return viewNames[v]
	}
	return "all"
}

// Frame is a distinct frame of the profile (equal file, function and line
// are one Frame even where the file's frame table repeats them). Its
// function's name and file are Profile.Names[Function]: a profile can have
// a million frames of a few functions.
type Frame struct {
	Line     int32
	Function int32 // index into Profile.Names: equal for frames of one function and file
}

// Name is a function's name and the file it is in.
type Name struct{ Func, File string }

// Node is a node of the call tree, a frame at a (file, function, line)
// level. The root (index 0) has Frame -1 and stands for all samples; a
// parent always has a lower index than its children.
type Node struct {
	Frame  int32 // index into Profile.Frames, -1 for the root
	Parent int32 // -1 for the root
	Self   uint64
	Total  uint64
}

// Cell is the samples of one class and label set in one time slice that
// a node holds as its innermost frame. Profile.Cells holds them sorted by
// node, class, slice and label set.
type Cell struct {
	Node     int32
	Class    Class
	Slice    uint16
	LabelSet uint16 // index into Profile.LabelSets
	N        uint64
}

// Function is a function's share of the samples: Self counts the samples in
// which it is the innermost frame, Total those in which it is anywhere on
// the stack (once per sample, however often it recurses).
type Function struct {
	Func, File string
	Line       int32 // the lowest line sampled in it, 0 if none
	Self       uint64
	Total      uint64
}

// RuntimeGroup is the Entry of the group of the runtime's system
// goroutines (Group.Runtime).
const RuntimeGroup = "runtime"

// Group is goroutines doing the same thing: started by the same function,
// by the rule tachyon info shares (internal/gogroup), so that identical
// workers are one group whatever each was sampled in most. Where shows
// what the group spends its time in: the innermost frame of the stack
// signature its members spent most samples in (each member's signature,
// the function-level stack it spent most samples in, found in constant
// space per goroutine by a weighted Misra-Gries summary of its samples'
// stacks). The runtime's system goroutines are one group of their own,
// unless Options.Runtime.
type Group struct {
	Entry      string // the members' start function, or where that is a closure, the function it calls most; or RuntimeGroup
	Where      string // the signature's innermost frame: a wait reason such as "[select]", or a function; "" for the runtime group
	Goroutines int
	Samples    uint64
	States     [tachyon.NumStates]uint64 // samples per tachyon.State
	Busy       uint64                    // running and runnable samples: the rank
	// Runtime marks the group of the runtime's system goroutines (their
	// samples under tachyon.RuntimeRoot): it comes after every group of
	// the program's whatever its rank, and its samples are not in the
	// call tree. Only without Options.Runtime.
	Runtime bool
	// Lanes are the indices in Profile.Lanes of the members with a lane,
	// busiest first.
	Lanes []int
	// Mix has, per state, one byte per timeline bucket: the share of the
	// members' samples in the bucket that are in the state, '0' for none
	// and '1' to 'z' (base 36) for a 35th of it and up; "" for a state
	// none is in.
	Mix [tachyon.NumStates]string
	// Cells has the members' samples per state and time slice, indexed
	// state*Profile.Slices + slice.
	Cells []uint64
}

// Lane is one goroutine's row of the timeline. Goroutines are told apart
// by thread id and interpreter id; the Go sampler writes the goroutine id as
// the thread id and interpreter 0.
type Lane struct {
	Goroutine   uint64
	Interpreter uint32
	Group       int // index into Profile.Groups
	Samples     uint64
	States      [tachyon.NumStates]uint64 // samples per tachyon.State
	Busy        uint64                    // running and runnable samples
	// Entry is the goroutine's group's Entry.
	Entry string
	// Timeline has one byte per time bucket: '.' when the goroutine has no
	// sample there, else '0'+state of the state holding most of the bucket.
	Timeline string
}

// Profile holds the aggregates a report is made of.
type Profile struct {
	Options    Options // with defaults filled in
	Samples    uint64
	Goroutines int
	StartTime  uint64 // header start time, µs
	Interval   uint64 // µs
	First, End uint64 // first sample's timestamp and last sample's plus the interval, µs
	States     [tachyon.NumStates]uint64
	// Shown has the samples per state the call tree, and so the views,
	// the flame graph and the tables, hold: every sample but those of the
	// runtime's system goroutines, unless Options.Runtime.
	Shown     [tachyon.NumStates]uint64
	Frames    []Frame
	Names     []Name // the frames' functions, by Frame.Function
	Nodes     []Node
	Cells     []Cell     // per node, class and time slice
	Functions []Function // those sampled, sorted by total, then self, then name
	// Origin and SliceWidth place the time slices: slice k spans
	// [Origin+k*SliceWidth, Origin+(k+1)*SliceWidth) µs; there are Slices,
	// at most Options.Slices. The timeline's Buckets columns
	// (Options.Buckets) span the same time.
	Origin, SliceWidth uint64
	Slices, Buckets    int
	Groups             []Group // the busiest Options.Groups groups, busiest first
	GroupCount         int     // all groups
	Lanes              []Lane  // goroutines with a lane, in their groups' order, busiest first
	// LabelSets are the samples' distinct label sets, in the order first
	// seen: LabelSets[0] is the empty set, of the samples without labels,
	// and past MaxLabelSets one more set, Other, stands for the rest.
	LabelSets []LabelSet
	// Leaks are the goroutines blocked at one stack through whole slices
	// of the profile, by creation site and wait (internal/leaks); nil for
	// a CPU profile or one without such goroutines.
	Leaks *leaks.Result
}

// BucketWidth returns the span of one timeline bucket in µs.
func (p *Profile) BucketWidth() float64 {
	return float64(p.SliceWidth) * float64(p.Slices) / float64(max(p.Buckets, 1))
}

// OnCPU returns the samples on a CPU (tachyon.State.OnCPU: running, not in
// a system call), of every goroutine.
func (p *Profile) OnCPU() uint64 {
	var n uint64
	for s, c := range p.States {
		if tachyon.State(s).OnCPU() {
			n += c
		}
	}
	return n
}

// Mode returns the mode the page shows: Options.Mode, else the one
// tachyon.InferMode infers from the states, and whether it was inferred.
func (p *Profile) Mode() (mode string, inferred bool) {
	if p.Options.Mode != "" {
		return p.Options.Mode, false
	}
	return string(tachyon.InferMode(p.OnCPU(), p.Samples)), true
}

// ViewSamples returns the samples view v shows: of Shown, those in the
// view's classes.
func (p *Profile) ViewSamples(v View) uint64 {
	var n uint64
	for s, c := range p.Shown {
		if v.Classes()>>ClassOf(tachyon.State(s))&1 != 0 {
			n += c
		}
	}
	return n
}

// DefaultView returns the view the page opens with: the one holding the
// time a user can act on. That is on CPU whenever any sample is (in a wall
// profile dominated by parked goroutines, the few running samples are the
// ones code changes speed up), else waiting for CPU, else off CPU, else all.
func (p *Profile) DefaultView() View {
	for _, v := range []View{ViewOnCPU, ViewWaiting, ViewOffCPU} {
		if p.ViewSamples(v) > 0 {
			return v
		}
	}
	return ViewAll
}
