package gotrace

// Time is a trace time in nanoseconds, on the trace's own clock.
type Time int64

// GoState is a goroutine's state, as in golang.org/x/exp/trace.
type GoState uint8

// The goroutine states.
const (
	GoUndetermined GoState = iota // not known: the first report of a goroutine
	GoNotExist
	GoRunnable
	GoRunning
	GoWaiting
	GoSyscall
)

// Kind says what an Event is.
type Kind uint8

// The kinds of Event.
const (
	// Sync starts a generation (and the last one ends the trace): stack
	// ids of the previous generation are no longer valid.
	Sync Kind = iota + 1
	// Transition is a goroutine's state transition.
	Transition
	// Sample is a CPU profile sample.
	Sample
	// TaskBegin is a runtime/trace task's start (trace.NewTask) on
	// goroutine G: Task, its Parent (0: none) and its type, Name.
	TaskBegin
	// TaskEnd is task Task's end, on goroutine G.
	TaskEnd
	// RegionBegin is the start of a region of type Name on goroutine G,
	// in task Task (0: none).
	RegionBegin
	// RegionEnd is the end of a region of type Name on goroutine G, in
	// task Task.
	RegionEnd
	// Log is a trace.Log of goroutine G in the category
	// tracelabel.Category (the only category returned), in task Task,
	// with the message Name.
	Log
)

// NoGoroutine is the goroutine of a CPU sample taken outside any.
const NoGoroutine = ^uint64(0)

// Event is one event of the trace. It holds no pointers, so that
// passing one on costs a plain copy: strings are ids, read with
// Reader.String until the next Sync.
type Event struct {
	Kind     Kind
	From, To GoState // Transition
	// Reason is the runtime's reason for a goroutine's stop or block, an
	// index for Reader.Reason (0: none).
	Reason uint32
	Time   Time
	// User is, for a Transition, the number Reader.SetUser gave G by the
	// time Next returned the event (0: none); the other kinds leave it 0.
	User uint32
	// G is the goroutine the transition is of, the goroutine a CPU
	// sample was taken in (NoGoroutine for none), or the goroutine a
	// task, region or log event was written on.
	G uint64
	// Stack is the event's stack in this generation's table (0 for none):
	// where a goroutine stopped, blocked or entered a system call, where a
	// created goroutine will start, where a CPU sample was taken.
	Stack uint64
	// Creator is, for a goroutine's creation (From GoNotExist), the
	// goroutine that created it: NoGoroutine if none did (a goroutine
	// made for a cgo callback).
	Creator uint64
	// CreatorStack is, for a goroutine's creation, the creator's stack
	// at the go statement, innermost first, in this generation's table
	// (0 for none).
	CreatorStack uint64
	// Task is the task of a task, region or log event; Parent a
	// TaskBegin's parent task (0: none).
	Task, Parent uint64
	// Name is a string id (Reader.String): the type of a task or region,
	// the message of a Log.
	Name uint64
}

// Clock relates trace time to wall time.
type Clock struct {
	Trace Time
	Wall  int64 // nanoseconds since the epoch at Trace
}

// Frame is one frame of a stack.
type Frame struct {
	PC   uint64
	Func string
	File string
	Line uint64
}

// The wire format's event types (internal/trace/tracev2 of Go 1.26).
const (
	evEventBatch        = 1
	evStacks            = 2
	evStack             = 3
	evStrings           = 4
	evString            = 5
	evCPUSamples        = 6
	evCPUSample         = 7
	evFrequency         = 8
	evGoCreate          = 14
	evGoCreateSyscall   = 15
	evGoStart           = 16
	evGoDestroy         = 17
	evGoDestroySyscall  = 18
	evGoStop            = 19
	evGoBlock           = 20
	evGoUnblock         = 21
	evGoSyscallBegin    = 22
	evGoSyscallEnd      = 23
	evGoSyscallEndBlock = 24
	evGoStatus          = 25
	evUserTaskBegin     = 40
	evUserTaskEnd       = 41
	evUserRegionBegin   = 42
	evUserRegionEnd     = 43
	evUserLog           = 44
	evGoSwitch          = 45
	evGoSwitchDestroy   = 46
	evGoCreateBlocked   = 47
	evGoStatusStack     = 48
	evExperimentalBatch = 49
	evSync              = 50
	evClockSnapshot     = 51
	evEndOfGeneration   = 52
)

// nargs is the number of arguments of each timed event type after its
// time delta, from the Go 1.26 event specs; 0 marks a type that is not a
// timed event.
var nargs = [...]uint8{
	9:  2, // ProcsChange: procs, stack
	10: 2, // ProcStart: p, p seq
	11: 0, // ProcStop
	12: 3, // ProcSteal: p, p seq, m
	13: 2, // ProcStatus: p, status
	14: 3, // GoCreate: new g, new stack, stack
	15: 1, // GoCreateSyscall: new g
	16: 2, // GoStart: g, g seq
	17: 0, // GoDestroy
	18: 0, // GoDestroySyscall
	19: 2, // GoStop: reason, stack
	20: 2, // GoBlock: reason, stack
	21: 3, // GoUnblock: g, g seq, stack
	22: 2, // GoSyscallBegin: p seq, stack
	23: 0, // GoSyscallEnd
	24: 0, // GoSyscallEndBlocked
	25: 3, // GoStatus: g, m, status
	26: 2, // STWBegin: kind, stack
	27: 0, // STWEnd
	28: 1, // GCActive: seq
	29: 2, // GCBegin: seq, stack
	30: 1, // GCEnd: seq
	31: 1, // GCSweepActive: p
	32: 1, // GCSweepBegin: stack
	33: 2, // GCSweepEnd: swept, reclaimed
	34: 1, // GCMarkAssistActive: g
	35: 1, // GCMarkAssistBegin: stack
	36: 0, // GCMarkAssistEnd
	37: 1, // HeapAlloc
	38: 1, // HeapGoal
	39: 1, // GoLabel
	40: 4, // UserTaskBegin: task, parent, name, stack
	41: 2, // UserTaskEnd: task, stack
	42: 3, // UserRegionBegin: task, name, stack
	43: 3, // UserRegionEnd: task, name, stack
	44: 4, // UserLog: task, key, value, stack
	45: 2, // GoSwitch: g, g seq
	46: 2, // GoSwitchDestroy: g, g seq
	47: 3, // GoCreateBlocked: new g, new stack, stack
	48: 4, // GoStatusStack: g, m, status, stack
}

// timed reports whether typ is a timed event of a regular batch.
func timed(typ byte) bool {
	return typ >= 9 && int(typ) < len(nargs)
}

// goState maps the wire format's goroutine status onto a GoState.
func goState(status uint64) (GoState, bool) {
	switch status {
	case 1:
		return GoRunnable, true
	case 2:
		return GoRunning, true
	case 3:
		return GoSyscall, true
	case 4:
		return GoWaiting, true
	}
	return 0, false
}
