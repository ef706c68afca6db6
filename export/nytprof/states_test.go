package nytprof

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// TestStatesAgree: with OnCPU, exactly the subs of the goroutines whose
// status tachyon.Status.OnCPU calls on CPU are called; without it, all.
func TestStatesAgree(t *testing.T) {
	f := proftest.AllStatuses(t)
	for _, cpu := range []bool{false, true} {
		var b bytes.Buffer
		if err := Write(&b, f, Options{OnCPU: cpu}); err != nil {
			t.Fatal(err)
		}
		d, err := decode(b.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		called := map[string]bool{}
		for _, c := range d.calls {
			called[c.callee] = true
		}
		for v := range proftest.NumStatuses {
			want := !cpu || tachyon.Status(v).OnCPU()
			if got := called[subName(proftest.StatusFunc(v))]; got != want {
				t.Errorf("OnCPU %v: status %#x (%v) called = %v, want %v", cpu, v, tachyon.Status(v).State(), got, want)
			}
		}
	}
}
