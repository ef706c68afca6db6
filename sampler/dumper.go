package sampler

import (
	"runtime"
	"time"
)

// firstRetryGap and maxRetryGap space the dumps that retake the measure
// of a pause over MaxSnapshotPause (see dumper.allow).
const (
	firstRetryGap = time.Second
	maxRetryGap   = 10 * time.Minute
)

// dumper takes runtime.Stack(all) dumps, which stop the world for a time
// that grows with the goroutines and their depth, within MaxSnapshotPause:
// the snapshot backend's and the leak profile's.
type dumper struct {
	buf       []byte
	perG      time.Duration // the latest dump's pause per goroutine
	bytesPerG int           // the latest dump's text per goroutine
	best      time.Duration // the least pause per goroutine of any dump
	last      time.Time     // when the latest dump began
	retryGap  time.Duration // the least time from a dump to a retake (allow)
}

// allow reports at now whether a dump of n goroutines would stop the
// world no longer than MaxSnapshotPause, and the pause it estimates: n
// times the latest dump's pause per goroutine, or a guess (pausePerG)
// before the first.
//
// The latest dump's pause may owe to a stall outside the dump's own work
// (a stop of the world that waited for a thread, a thread the kernel set
// aside), which would refuse every dump after it at the same count. So
// while the fastest dump so far says that n goroutines fit, one dump
// retakes the measure firstRetryGap after the latest, then at intervals
// that double up to maxRetryGap while the pauses stay over the bound;
// a dump within it ends the retakes.
func (d *dumper) allow(n int, now time.Time) (time.Duration, bool) {
	perG := d.perG
	if perG == 0 {
		perG = pausePerG
	}
	est := perG * time.Duration(n)
	if est <= MaxSnapshotPause {
		d.retryGap = 0
		return est, true
	}
	if d.best > 0 && d.best*time.Duration(n) <= MaxSnapshotPause && now.Sub(d.last) >= max(d.retryGap, firstRetryGap) {
		d.retryGap = min(2*max(d.retryGap, firstRetryGap), maxRetryGap)
		return est, true
	}
	return est, false
}

// dump takes at now one dump of about n goroutines, in a buffer sized
// from the previous dump (a dump that does not fit stops the world
// again), and returns it with the time spent inside runtime.Stack (the
// world is stopped for all of it) and whether it is whole: one that
// filled snapMaxBuf is cut short.
func (d *dumper) dump(n int, now time.Time) ([]byte, time.Duration, bool) {
	want := max(min(n*d.bytesPerG*5/4, snapMaxBuf), snapInitialBuf)
	if want > len(d.buf) {
		d.buf = make([]byte, want)
	}
	d.last = now
	var pause time.Duration
	for {
		t := time.Now()
		k := runtime.Stack(d.buf, true)
		pause += time.Since(t)
		if k < len(d.buf) || len(d.buf) >= snapMaxBuf {
			if n > 0 {
				d.perG, d.bytesPerG = pause/time.Duration(n), k/n+1
				if d.best == 0 || d.perG < d.best {
					d.best = d.perG
				}
			}
			return d.buf[:k], pause, k < len(d.buf)
		}
		d.buf = make([]byte, min(2*len(d.buf), snapMaxBuf))
	}
}
