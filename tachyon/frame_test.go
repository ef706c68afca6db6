package tachyon

import "testing"

func TestWaitReason(t *testing.T) {
	for fr, want := range map[Frame]string{
		{Func: "[chan receive]"}:               "chan receive",
		{Func: "[select]"}:                     "select",
		{File: "x.go", Func: "[chan receive]"}: "",
		{Func: "[sleep]", Line: 3}:             "",
		{Func: "[]"}:                           "",
		{Func: "main.f"}:                       "",
		{Func: RuntimeRoot}:                    "",
		{Func: NoCPUSample}:                    "",
	} {
		got, ok := WaitReason(fr)
		if got != want || ok != (want != "") {
			t.Errorf("WaitReason(%+v) = %q, %v; want %q", fr, got, ok, want)
		}
	}
}

func TestSyntheticFrames(t *testing.T) {
	for fr, want := range map[Frame]bool{
		WaitFrame("select"):          true,
		{Func: RuntimeRoot}:          true,
		{Func: NoCPUSample}:          true,
		{Func: RuntimeRoot, Line: 1}: false,
		{Func: "[x]", File: "a.go"}:  false,
		{Func: "main.main", Line: 0}: false,
		{Func: "[]"}:                 false,
	} {
		if got := Synthetic(fr); got != want {
			t.Errorf("Synthetic(%+v) = %v, want %v", fr, got, want)
		}
	}
	if !IsRuntimeRoot(Frame{Func: RuntimeRoot}) || IsRuntimeRoot(Frame{Func: NoCPUSample}) || IsRuntimeRoot(Frame{Func: RuntimeRoot, File: "x.go"}) {
		t.Error("IsRuntimeRoot is wrong")
	}
	if !IsNoCPUSample(Frame{Func: NoCPUSample}) || IsNoCPUSample(Frame{Func: RuntimeRoot}) || IsNoCPUSample(Frame{Func: NoCPUSample, Line: 3}) {
		t.Error("IsNoCPUSample is wrong")
	}
}
