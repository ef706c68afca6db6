package reader

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/gotachyon/profiler/tachyon"
)

// Run is the extent of the current run of samples: Count samples of one
// thread with the same stack and status, consecutive in the file, the
// first of which is Samples.Sample, the last at timestamp Last.
type Run struct {
	Count uint64
	Last  uint64 // microseconds, like Sample.Timestamp
	// Step is the time between consecutive samples of a run NextEvenRun
	// gathered (0 for one sample, and after Next and NextRun).
	Step uint64
}

// Run returns the current run: after Next, the current sample alone; after
// NextRun, the samples it gathered.
func (it *Samples) Run() Run { return it.run }

// NextRun is Next for readers that aggregate: it decodes the next sample
// and with it the samples that follow it in the same REPEAT record with the
// same status, and reports them as one run. Sample returns the run's first
// sample and Run its count and last timestamp. A wall profile's parked
// goroutines are runs of hundreds of samples, so that an exporter weighing
// each run by its count does work in proportion to the file's records, not
// its samples; the pairs are still decoded and checked one by one.
//
// Next and NextRun may be mixed. The counts in Stats are per sample either
// way. A run cut short by a format error is reported, and the next call
// returns false with the error in Err, as Next would.
func (it *Samples) NextRun() bool { return it.gather(false) }

// NextEvenRun is NextRun for readers that copy samples, such as a merge:
// the run it gathers is also evenly spaced, its samples Run.Step apart, so
// that Sample, Run.Count and Run.Step give every sample's timestamp. It
// stops before the first sample that follows at another distance.
func (it *Samples) NextEvenRun() bool { return it.gather(true) }

// gather decodes the next sample and the samples that follow it in the
// same REPEAT record with the same status, and if even at the same
// distance, as the current run.
func (it *Samples) gather(even bool) bool {
	if !it.Next() {
		return false
	}
	for it.repeat > 0 && !it.held {
		prev := it.run.Last
		ts, st, ok := it.pair(it.cur)
		if !ok {
			break
		}
		d := ts - prev
		if st != it.sample.Status || even && it.run.Count > 1 && d != it.run.Step {
			it.held, it.heldTS, it.heldStatus = true, ts, st
			break
		}
		if !it.withinLimits() {
			break
		}
		if even {
			it.run.Step = d
		}
		it.count(1, ts)
		it.sameAgain(d, st) // pairs equal to this one: the same distance
	}
	return true
}

// count adds n samples of the current REPEAT record, the last at ts, to
// the run.
func (it *Samples) count(n, ts uint64) {
	it.repeat -= n
	it.stats.Samples += n
	it.stats.SamplesBy[tachyon.Repeat] += n
	it.run.Count += n
	it.run.Last = ts
}

// sameAgain counts into the run the pairs that follow in the buffer and
// are, byte for byte, the pair just read (delta d, status st): a parked
// goroutine's REPEAT record is hundreds of them, and comparing a few bytes
// costs a fraction of decoding them. It stops before a sample that the
// per-pair checks must see: the one past the header's count, the one at
// which the decompression-bomb bound is checked, one whose timestamp would
// overflow. The caller reads those, and anything else, the slow way, so
// the samples, the counts and any error are the same as Next's.
func (it *Samples) sameAgain(d uint64, st tachyon.Status) {
	var pb [binary.MaxVarintLen64 + 1]byte
	p := append(binary.AppendUvarint(pb[:0], d), byte(st))
	r := it.stats.Samples & paceEvery
	if r == 0 {
		return // the bound is checked at this sample
	}
	most := min(it.repeat, paceEvery+1-r)
	if h := uint64(it.f.Header.SampleCount); it.stats.Samples < h {
		most = min(most, h-it.stats.Samples)
	} else {
		return
	}
	if d > 0 {
		most = min(most, (math.MaxUint64-it.cur.ts)/d)
	}
	// Compare many pairs at once against the pair repeated, then one by one.
	var rb [256]byte
	k := len(rb) / len(p)
	pat := rb[:0]
	for range k {
		pat = append(pat, p...)
	}
	src := it.src
	n, pos := uint64(0), src.pos
	for n+uint64(k) <= most && pos+len(pat) <= len(src.buf) && bytes.Equal(src.buf[pos:pos+len(pat)], pat) {
		pos += len(pat)
		n += uint64(k)
	}
	for n < most && pos+len(p) <= len(src.buf) && bytes.Equal(src.buf[pos:pos+len(p)], p) {
		pos += len(p)
		n++
	}
	if n == 0 {
		return
	}
	src.pos = pos
	it.cur.ts += d * n
	it.count(n, it.cur.ts)
}
