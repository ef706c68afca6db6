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
		none: Blocked, exc: Blocked, cpu | unk: Syscall, unk: Unknown,
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

func TestWaitReason(t *testing.T) {
	for fr, want := range map[Frame]string{
		{Func: "[chan receive]"}:               "chan receive",
		{Func: "[select]"}:                     "select",
		{File: "x.go", Func: "[chan receive]"}: "",
		{Func: "[sleep]", Line: 3}:             "",
		{Func: "[]"}:                           "",
		{Func: "main.f"}:                       "",
	} {
		got, ok := WaitReason(fr)
		if got != want || ok != (want != "") {
			t.Errorf("WaitReason(%+v) = %q, %v; want %q", fr, got, ok, want)
		}
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
