package reader

import "github.com/gotachyon/profiler/tachyon"

// Run is the extent of the current run of samples: Count samples of one
// thread with the same stack and status, consecutive in the file, the
// first of which is Samples.Sample, the last at timestamp Last.
type Run struct {
	Count uint64
	Last  uint64 // microseconds, like Sample.Timestamp
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
func (it *Samples) NextRun() bool {
	if !it.Next() {
		return false
	}
	for it.repeat > 0 && !it.held {
		ts, st, ok := it.pair(it.cur)
		if !ok {
			break
		}
		if st != it.sample.Status {
			it.held, it.heldTS, it.heldStatus = true, ts, st
			break
		}
		if !it.withinLimits() {
			break
		}
		it.repeat--
		it.stats.Samples++
		it.stats.SamplesBy[tachyon.Repeat]++
		it.run.Count++
		it.run.Last = ts
	}
	return true
}
