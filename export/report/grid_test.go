package report

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// TestSpread checks that a run spread over the slices keeps its count and
// puts each sample in the slice of its timestamp, as a per-sample loop
// would, for runs within one slice, across several and past the origin.
func TestSpread(t *testing.T) {
	for _, c := range []struct{ t0, t1, n uint64 }{
		{1000, 1000, 1}, {1000, 1000, 7}, {1000, 9000, 9}, {1500, 98_500, 98}, {0, 1_000_000, 1001}, {999, 1001, 3},
	} {
		g := newGrid(1000, 4)
		g.fit(5000, 5000) // origin 5000: earlier samples have negative slices
		g.fit(c.t0, c.t1)
		got := map[int64]uint64{}
		g.spread(c.t0, c.t1, c.n, func(k int64, n uint64) { got[k] += n })
		want := map[int64]uint64{}
		for j := range c.n {
			ts := c.t0
			if c.n > 1 {
				ts += (c.t1 - c.t0) * j / (c.n - 1)
			}
			want[g.index(ts)]++
		}
		for k, n := range want {
			if got[k] != n {
				t.Errorf("run %+v on %d µs slices: slice %d has %d samples, want %d (all %v)", c, g.width, k, got[k], n, got)
			}
		}
		if len(got) != len(want) || g.hi-g.lo >= g.max {
			t.Errorf("run %+v: slices %v, want %v, within %d of [%d, %d]", c, got, want, g.max, g.lo, g.hi)
		}
	}
}

// TestMaxBytes: a page asked to stay small cuts its call tree to fit.
func TestMaxBytes(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 M samples")
	}
	path, err := million()
	if err != nil {
		t.Fatal(err)
	}
	f := proftest.Open(t, path)
	const limit = 400_000
	var buf bytes.Buffer
	if err := Write(&buf, f, Options{MaxBytes: limit, Goroutines: 20, Groups: 20}); err != nil {
		t.Fatal(err)
	}
	d := extract(t, buf.Bytes())
	checkTree(t, d)
	t.Logf("page %d bytes, %d of %d nodes", buf.Len(), d.Meta.NodesShown, d.Meta.Nodes)
	if buf.Len() > limit || d.Meta.NodesShown < 100 {
		t.Errorf("page of %d bytes with %d nodes, want at most %d bytes and some nodes", buf.Len(), d.Meta.NodesShown, limit)
	}
}
