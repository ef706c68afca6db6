package tachyon

import (
	"strings"
	"testing"
)

func TestStatusState(t *testing.T) {
	const (
		gil  = StatusHasGIL
		cpu  = StatusOnCPU
		unk  = StatusUnknown
		req  = StatusGILRequested
		exc  = StatusHasException
		none = 0
	)
	for status, want := range map[Status]State{
		cpu | gil: Running, cpu: Running, gil | exc: Runnable, gil: Runnable, req: Runnable, cpu | req: Running,
		none: Blocked, exc: Blocked, req | unk: Syscall, cpu | unk: Syscall, cpu | req | unk: Syscall,
		unk: Unknown, unk | gil: Unknown, unk | exc: Unknown,
	} {
		if got := status.State(); got != want {
			t.Errorf("Status(%#x).State() = %v, want %v", status, got, want)
		}
	}
	for s := range State(NumStates) {
		p, err := ParseState(s.String())
		if err != nil || p != s {
			t.Errorf("ParseState(%q) = %v, %v", s, p, err)
		}
	}
	if _, err := ParseState("sleeping"); err == nil || !strings.Contains(err.Error(), "sleeping") {
		t.Errorf("ParseState(sleeping) error = %v", err)
	}
}

func TestStatusOfRoundTrips(t *testing.T) {
	for s := range State(NumStates) {
		for _, p := range []bool{false, true} {
			st := StatusOf(s, p)
			if st.State() != s || st.Panicking() != p || st.OnCPU() != s.OnCPU() {
				t.Errorf("StatusOf(%v, %v) = %#x: state %v, panicking %v, on CPU %v", s, p, st, st.State(), st.Panicking(), st.OnCPU())
			}
		}
	}
}

// TestOnlyRunningIsOnCPU checks the one meaning of "on CPU": the Running
// state, whatever the flags; a system call never is, and StatusOf never
// sets the OnCPU flag, which the format defines as running on a core, for
// any other state.
func TestOnlyRunningIsOnCPU(t *testing.T) {
	for s := range State(NumStates) {
		if got := s.OnCPU(); got != (s == Running) {
			t.Errorf("%v.OnCPU() = %v", s, got)
		}
		if st := StatusOf(s, false); st&StatusOnCPU != 0 && s != Running {
			t.Errorf("StatusOf(%v) = %#x sets OnCPU", s, st)
		}
	}
	for v := range 1 << 5 {
		st := Status(v)
		if got := st.OnCPU(); got != (st.State() == Running) {
			t.Errorf("Status(%#x).OnCPU() = %v, state %v", v, got, st.State())
		}
	}
}

// TestSyscallOldEncoding reads a system call as files written before
// StatusOf left out the OnCPU flag stored it, Unknown|OnCPU: still a system
// call, and not on a CPU.
func TestSyscallOldEncoding(t *testing.T) {
	for _, st := range []Status{StatusUnknown | StatusOnCPU, StatusUnknown | StatusOnCPU | StatusHasException} {
		if st.State() != Syscall || st.OnCPU() || st.State().OnCPU() {
			t.Errorf("Status(%#x): state %v, on CPU %v; want syscall, not on CPU", st, st.State(), st.OnCPU())
		}
	}
	if st := StatusOf(Syscall, false); st != StatusUnknown|StatusGILRequested {
		t.Errorf("StatusOf(Syscall) = %#x, want Unknown|GILRequested", st)
	}
}
