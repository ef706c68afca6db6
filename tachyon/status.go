package tachyon

import (
	"fmt"
	"strings"
)

// Status is a sample's status byte: a set of flags named after the
// format's origin in CPython. Go profilers map goroutine states onto them
// (see package sampler for the table), and every reader of a profile turns
// them back into a State through State, never by testing bits itself.
type Status uint8

// Status flags.
const (
	StatusHasGIL       Status = 1 << 0 // holds the interpreter lock (Go: holds a P)
	StatusOnCPU        Status = 1 << 1 // running on a CPU
	StatusUnknown      Status = 1 << 2 // state could not be determined
	StatusGILRequested Status = 1 << 3 // waiting for the lock (Go: runnable, waiting for a P)
	StatusHasException Status = 1 << 4 // an exception is pending (Go: panicking)
)

// State is what a thread (a goroutine) was doing in one sample.
type State uint8

// The states, in the order of States.
const (
	Running  State = iota // on a CPU: OnCPU set
	Runnable              // ready, waiting for a CPU (a P): GILRequested, or HasGIL alone
	Blocked               // parked, waiting for something: no state flag
	Syscall               // in the kernel: OnCPU and Unknown
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

// OnCPU reports whether a thread in state s uses a CPU: running or in a
// system call.
func (s State) OnCPU() bool { return s == Running || s == Syscall }

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
// Unknown with OnCPU is a system call, Unknown alone unknown; OnCPU is
// running; GILRequested, or HasGIL alone (holding the lock, off the CPU:
// waiting for the OS to run it), is runnable; no flag is blocked.
// HasException does not change the state. So a state uses a CPU exactly
// when the OnCPU flag is set, as the format's CPU views count it.
func (st Status) State() State {
	switch {
	case st&StatusUnknown != 0:
		if st&StatusOnCPU != 0 {
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

// OnCPU reports whether the sample was taken on a CPU: the OnCPU flag,
// which is the same as State().OnCPU() (running or in a system call).
// Every CPU-time figure (pprof's cpu type, the DCPI and SPX exports,
// NYTProf's on-CPU option, the report's on-CPU view) counts these.
func (st Status) OnCPU() bool { return st&StatusOnCPU != 0 }

// Panicking reports whether HasException is set (Go: the goroutine is
// panicking).
func (st Status) Panicking() bool { return st&StatusHasException != 0 }

// StatusOf returns the status a writer stores for a thread in state s:
// running is OnCPU|HasGIL, runnable GILRequested, a system call
// OnCPU|Unknown, blocked no flag, unknown Unknown; panicking adds
// HasException. StatusOf(s, p).State() == s for every State.
func StatusOf(s State, panicking bool) Status {
	var st Status
	switch s {
	case Running:
		st = StatusOnCPU | StatusHasGIL
	case Runnable:
		st = StatusGILRequested
	case Syscall:
		st = StatusOnCPU | StatusUnknown
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
