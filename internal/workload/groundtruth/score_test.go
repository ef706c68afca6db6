package groundtruth

import "testing"

// TestScoreWaitFunctionOnCPU scores one running sample in the sleeper's
// sleep function, a waiting phase by its record: in wall mode it counts as
// waiting (woken, its thread perhaps stopped there), in CPU mode as the CPU
// sample's proof that the goroutine was on a CPU, on its way into or out
// of the sleep, which Check accepts.
func TestScoreWaitFunctionOnCPU(t *testing.T) {
	l := &log{role: Sleeper, id: 7, phases: []phase{{fn: "sleeperSleep", state: Waiting, start: 0, end: 1e9, cpu: -1}}}
	ss := []gsample{{ts: 500_000, state: Active, known: true, fn: "sleeperSleep", top: "runtime.gopark"}}
	tr := l.truth(0, 1e9)
	for _, cpu := range []bool{false, true} {
		r := &Report{CPU: cpu}
		g := r.score(l, ss, tr, []uint64{500_000})
		want := 1.0
		if cpu {
			want = 0
		}
		if got := g.States[Waiting].Got; got != want {
			t.Errorf("CPU mode %v: waiting share %.2f, want %.2f", cpu, got, want)
		}
		if g.Woken != want {
			t.Errorf("CPU mode %v: woken share %.2f, want %.2f", cpu, g.Woken, want)
		}
		if cpu {
			r.Goroutines = []Goroutine{g}
			if err := r.Check(DefaultLimits); err != nil {
				t.Errorf("CPU mode: %v", err)
			}
		}
	}
}
