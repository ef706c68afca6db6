package pyroscope

import (
	"testing"

	"github.com/google/pprof/profile"
)

// TestNameLabelsDeterministic: where two label names of a sample become one
// Prometheus name, the same one keeps it on every sample, so that the
// samples of one label set land in one series, not in a series picked by
// map order.
func TestNameLabelsDeterministic(t *testing.T) {
	seen := map[string]int{}
	for range 200 {
		p := &profile.Profile{Sample: []*profile.Sample{{Label: map[string][]string{
			"a.b": {"dot"}, "a-b": {"dash"}, "x.y": {"1"}, "x y": {"2"}, "ok": {"v"},
		}}}}
		nameLabels(p)
		l := p.Sample[0].Label
		if len(l) != 3 || l["ok"][0] != "v" {
			t.Fatalf("renamed labels %v", l)
		}
		seen[l["a_b"][0]+" "+l["x_y"][0]]++
	}
	if len(seen) != 1 || seen["dash 2"] != 200 {
		t.Errorf("one label set renamed %d ways: %v; want a-b's and x y's values (first in byte order) every time", len(seen), seen)
	}
}
