package pprof

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// TestCreatedByLabel converts proftest.LeakFile: every sample of a
// goroutine the sampler saw created carries its creation site as the
// sample label created_by, and the leaked goroutines' last samples the
// label leak=unreachable, with the samples' counts the file's.
func TestCreatedByLabel(t *testing.T) {
	p, err := Convert(proftest.Open(t, proftest.LeakFile(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int64{}
	var unreachable int64
	for _, s := range p.Sample {
		site := s.Label[tachyon.LabelCreatedBy]
		if len(site) > 1 {
			t.Fatalf("created_by %q", site)
		}
		if len(site) == 1 {
			by[site[0]] += s.Value[0]
		} else {
			by[""] += s.Value[0]
		}
		if v := s.Label[tachyon.LabelLeak]; len(v) == 1 && v[0] == tachyon.LeakUnreachable {
			unreachable += s.Value[0]
		}
	}
	leaked := int64(0) // the leak's samples: one per tick per goroutine made
	marked := int64(0)
	for tick := range proftest.LeakTicks {
		n := int64(tick/proftest.LeakEvery + 1)
		leaked += n
		if tick >= proftest.LeakMarkedFrom {
			marked += n
		}
	}
	want := map[string]int64{"": proftest.LeakTicks, proftest.PoolSite: proftest.LeakTicks * proftest.PoolSize, proftest.LeakSite: leaked}
	for k, w := range want {
		if by[k] != w {
			t.Errorf("created_by %q: %d samples, want %d", k, by[k], w)
		}
	}
	if len(by) != len(want) || unreachable != marked {
		t.Errorf("samples by created_by %v; %d unreachable, want %d", by, unreachable, marked)
	}
}
