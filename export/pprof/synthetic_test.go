package pprof

import (
	"testing"

	"github.com/gotachyon/profiler/tachyon"
)

// TestSyntheticFramesNotWaitReasons checks that only a wait reason leaves
// the stack for the wait_reason label: "[no CPU sample]", innermost in a
// runnable sample, and "[runtime]", outermost in a runtime goroutine's,
// stay frames, and neither is on_cpu.
func TestSyntheticFramesNotWaitReasons(t *testing.T) {
	noCPU := tachyon.Frame{Func: tachyon.NoCPUSample}
	root := tachyon.Frame{Func: tachyon.RuntimeRoot}
	sweep := tachyon.Frame{File: "/go/src/runtime/mgcsweep.go", Func: "runtime.bgsweep", Line: 300}
	p := roundTrip(t, writeProfile(t, []sample{
		{1, 1000, tachyon.StatusHasGIL, []tachyon.Frame{noCPU, fWork, fMain}},
		{2, 1000, 0, []tachyon.Frame{tachyon.WaitFrame("GC sweep wait"), sweep, root}},
		{3, 1000, running, []tachyon.Frame{fWork, fMain}},
	}), Options{})
	for _, s := range p.Sample {
		inner, outer := s.Location[0].Line[0].Function.Name, s.Location[len(s.Location)-1].Line[0].Function.Name
		reason := s.Label[LabelWaitReason]
		switch g := s.Label[LabelGoroutine][0]; g {
		case "1":
			if inner != tachyon.NoCPUSample || len(reason) != 0 || s.Label[LabelState][0] != "runnable" || s.Value[2] != 0 {
				t.Errorf("goroutine 1: innermost %q, reason %v, labels %v, on_cpu %d", inner, reason, s.Label, s.Value[2])
			}
		case "2":
			if inner != "runtime.bgsweep" || outer != tachyon.RuntimeRoot || len(reason) != 1 || reason[0] != "GC sweep wait" {
				t.Errorf("goroutine 2: innermost %q, outermost %q, reason %v", inner, outer, reason)
			}
		case "3":
			if s.Value[2] == 0 {
				t.Errorf("goroutine 3: on_cpu 0")
			}
		}
	}
}
