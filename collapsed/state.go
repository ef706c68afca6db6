package collapsed

import (
	"fmt"
	"strings"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// State is the scheduling state of a goroutine in one sample, derived from
// the sample's status bits by StateOf.
type State uint8

// The states, in the order of States.
const (
	Running  State = iota // on a CPU (OnCPU or HasGIL set)
	Runnable              // waiting for a P (GILRequested)
	Blocked               // parked: no state bit set
	Syscall               // in the kernel (OnCPU|Unknown)
	Unknown               // the sampler could not tell (Unknown alone)
	numStates
)

// NumStates is the number of distinct States.
const NumStates = int(numStates)

var stateNames = [numStates]string{"running", "runnable", "blocked", "syscall", "unknown"}

// String returns the state's name as used in labels and on the command line.
func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// StateOf maps a sample's status bits to a State: Unknown with OnCPU is a
// syscall, Unknown alone unknown, GILRequested runnable, OnCPU or HasGIL
// running, and no bit (HasException aside) blocked.
func StateOf(status uint8) State {
	switch {
	case status&tachyon.StatusUnknown != 0:
		if status&tachyon.StatusOnCPU != 0 {
			return Syscall
		}
		return Unknown
	case status&tachyon.StatusGILRequested != 0:
		return Runnable
	case status&(tachyon.StatusOnCPU|tachyon.StatusHasGIL) != 0:
		return Running
	default:
		return Blocked
	}
}

// ParseState returns the State named s (as printed by State.String).
func ParseState(s string) (State, error) {
	for i, n := range stateNames {
		if n == s {
			return State(i), nil
		}
	}
	return 0, fmt.Errorf("unknown state %q (want one of %s)", s, strings.Join(stateNames[:], ", "))
}

// WaitReason reports whether fr is the synthetic frame the Go sampler puts
// innermost in a parked goroutine's stack to carry its wait reason (a
// function named like "[chan receive]", with no file and line 0), and
// returns the reason without the brackets.
func WaitReason(fr reader.Frame) (string, bool) {
	n := len(fr.Func)
	if fr.File != "" || fr.Line != 0 || n < 3 || fr.Func[0] != '[' || fr.Func[n-1] != ']' {
		return "", false
	}
	return fr.Func[1 : n-1], true
}
