package report

import "math"

// grid cuts time into at most max slices of equal width while samples are
// read, before their span is known: slices are numbered from origin, the
// first timestamp seen (negative before it), and when the samples span
// more than max slices the width doubles. Aggregates kept per slice are
// merged pairwise then (see aggregator.coarsen).
type grid struct {
	origin uint64
	width  uint64 // µs, a power-of-two multiple of the interval
	lo, hi int64  // the lowest and highest slice used
	max    int64
	seen   bool
}

// indexCap bounds a slice index while the width grows towards the span of
// a hostile file's timestamps.
const indexCap = 1 << 40

func newGrid(interval uint64, slices int) grid {
	return grid{width: max(interval, 1), max: int64(slices)}
}

// index returns the slice of timestamp t.
func (g *grid) index(t uint64) int64 {
	if t >= g.origin {
		return int64(min((t-g.origin)/g.width, indexCap))
	}
	return -int64(min((g.origin-t-1)/g.width+1, indexCap))
}

// fit makes room for timestamps t0 to t1 (t0 <= t1) and returns the
// number of times the width doubled.
func (g *grid) fit(t0, t1 uint64) int {
	if !g.seen {
		g.seen, g.origin = true, t0
	}
	doubled := 0
	for {
		lo, hi := min(g.lo, g.index(t0)), max(g.hi, g.index(t1))
		if hi-lo < g.max || g.width > math.MaxUint64/4 {
			g.lo, g.hi = lo, hi
			return doubled
		}
		g.width *= 2
		g.lo, g.hi = floorHalf(g.lo), floorHalf(g.hi)
		doubled++
	}
}

// floorHalf returns floor(i/2).
func floorHalf(i int64) int64 { return i >> 1 }

// spread divides a run of n samples evenly spaced from t0 to t1 among the
// slices they fall in, calling add with each slice (relative to lo after
// fit) and its count; the counts add up to n. Its cost follows the slices
// the run spans, not n.
func (g *grid) spread(t0, t1, n uint64, add func(slice int64, n uint64)) {
	k0, k1 := g.index(t0), g.index(t1)
	if k0 == k1 || n == 1 {
		add(k0, n)
		return
	}
	span := float64(t1 - t0)
	off := float64(int64(k0)) * float64(g.width) // slice k0's start, relative to origin
	rel0 := relTime(t0, g.origin)
	var done uint64
	for k := k0; k < k1; k++ {
		// Samples t0 + span*j/(n-1) before slice k's end: j < (end-t0)*(n-1)/span.
		end := off + float64(k-k0+1)*float64(g.width)
		c := uint64(math.Ceil((end - rel0) * float64(n-1) / span))
		c = min(max(c, done), n)
		if c > done {
			add(k, c-done)
			done = c
		}
	}
	if done < n {
		add(k1, n-done)
	}
}

// relTime returns t - origin as a float.
func relTime(t, origin uint64) float64 {
	if t >= origin {
		return float64(t - origin)
	}
	return -float64(origin - t)
}

// overlap adds, for a run of n samples from t0 to t1, each sample standing
// for dur µs, the samples' weight in every bucket of width bw from the
// timeline's start (relative to origin), at most nb buckets: a weight is
// the run's density times the time it overlaps the bucket, so a bucket the
// run covers whole weighs bw/dur samples.
func overlap(t0, t1, n uint64, origin uint64, start, bw, dur float64, nb int, add func(bucket int, w float64)) {
	a := relTime(t0, origin) - start
	b := relTime(t1, origin) - start + dur
	w := float64(n) / (b - a)
	lo, hi := int(math.Floor(a/bw)), min(int(b/bw), nb-1)
	for k := max(lo, 0); k <= hi; k++ {
		bs, be := float64(k)*bw, float64(k+1)*bw
		if ov := min(b, be) - max(a, bs); ov > 0 {
			add(k, w*ov)
		}
	}
}
