package tachyon

import (
	"fmt"
	"strings"
)

// Status is a sample's status byte: a set of flags named after the
// format's origin in CPython. A Go profiler maps goroutine states onto
// them through StatusOf, and every reader of a profile turns them back
// into a State through State (and OnCPU), never by testing bits itself.
type Status uint8

// Status flags.
const (
	StatusHasGIL       Status = 1 << 0 // holds the interpreter lock (Go: holds a P)
	StatusOnCPU        Status = 1 << 1 // actively running on a CPU core (Go: running)
	StatusUnknown      Status = 1 << 2 // state could not be determined (Go: with GILRequested, in a system call)
	StatusGILRequested Status = 1 << 3 // waiting for the lock (Go: runnable, waiting for a P)
	StatusHasException Status = 1 << 4 // an exception is pending (Go: panicking)
)

// State is what a thread (a goroutine) was doing in one sample. Every
// view and export of this module counts the states alike: only Running is
// on a CPU (State.OnCPU); Runnable waits for one; Syscall and Blocked are
// off the CPU, in the kernel or parked.
type State uint8

// The states, in the order of States.
const (
	Running  State = iota // on a CPU: OnCPU set
	Runnable              // ready, waiting for a CPU (a P): GILRequested, or HasGIL alone
	Blocked               // parked, waiting for something: no state flag
	Syscall               // in the kernel, off the CPU: Unknown with GILRequested (or OnCPU, as files once wrote it)
	Unknown               // the sampler could not tell: Unknown alone
	numStates
)

// NumStates is the number of distinct States.
const NumStates = int(numStates)

var stateNames = [numStates]string{"running", "runnable", "blocked", "syscall", "unknown"}

// String returns the state's name, as used in labels and on command lines.
func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// OnCPU reports whether a thread in state s was running on a CPU: s is
// Running. A system call is not: a goroutine in one is in the kernel,
// most often blocked there (a read(2) waiting for data, os/signal's loop
// waiting for a signal), and the CPU time it does spend in the kernel the
// CPU profiler sees, so a Go sampler writes that time as Running.
func (s State) OnCPU() bool { return s == Running }

// ParseState returns the State named s, as printed by State.String.
func ParseState(s string) (State, error) {
	for i, n := range stateNames {
		if n == s {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("unknown state %q (want one of %s)", s, strings.Join(stateNames[:], ", "))
}

// State maps the status flags to a State. The rules, first match wins:
// Unknown with GILRequested or with OnCPU is a system call (StatusOf
// writes the first; files written before it the second), Unknown alone
// (or with HasGIL) unknown; OnCPU is running; GILRequested, or HasGIL
// alone (holding the lock, off the CPU: waiting for the OS to run it), is
// runnable; no flag is blocked. HasException does not change the state.
func (st Status) State() State {
	switch {
	case st&StatusUnknown != 0:
		if st&(StatusGILRequested|StatusOnCPU) != 0 {
			return Syscall
		}
		return Unknown
	case st&StatusOnCPU != 0:
		return Running
	case st&(StatusGILRequested|StatusHasGIL) != 0:
		return Runnable
	default:
		return Blocked
	}
}

// OnCPU reports whether the sample was taken on a CPU: its State is
// Running. It is not the OnCPU flag alone: a file written before StatusOf
// wrote system calls as Unknown|GILRequested has OnCPU in its system
// calls, which are not on a CPU either. Every CPU-time figure (pprof's cpu
// and on_cpu values, the DCPI and SPX exports, NYTProf's on-CPU option,
// the report's on-CPU view, info's top on CPU) counts these.
func (st Status) OnCPU() bool { return st.State() == Running }

// Panicking reports whether HasException is set (Go: the goroutine is
// panicking).
func (st Status) Panicking() bool { return st&StatusHasException != 0 }

// StatusOf returns the status a writer stores for a thread in state s:
// running is OnCPU|HasGIL, runnable GILRequested, a system call
// Unknown|GILRequested (no OnCPU flag: the format defines it as actively
// running on a CPU core), blocked no flag, unknown Unknown; panicking adds
// HasException. StatusOf(s, p).State() == s for every State.
func StatusOf(s State, panicking bool) Status {
	var st Status
	switch s {
	case Running:
		st = StatusOnCPU | StatusHasGIL
	case Runnable:
		st = StatusGILRequested
	case Syscall:
		st = StatusUnknown | StatusGILRequested
	case Blocked:
		st = 0
	default:
		st = StatusUnknown
	}
	if panicking {
		st |= StatusHasException
	}
	return st
}
