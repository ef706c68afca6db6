package sampler

import (
	"testing"
	"time"
)

// TestDumperBound: a dump whose estimated pause exceeds MaxSnapshotPause
// is refused, for good while no dump has shown the count to fit.
func TestDumperBound(t *testing.T) {
	d := dumper{perG: 10 * time.Microsecond, best: 10 * time.Microsecond}
	now := time.Now()
	if _, ok := d.allow(1000, now); !ok {
		t.Fatalf("1,000 goroutines at 10 µs each refused")
	}
	if est, ok := d.allow(20000, now); ok || est != 200*time.Millisecond {
		t.Fatalf("20,000 goroutines at 10 µs each allowed (estimate %v)", est)
	}
	if _, ok := d.allow(20000, now.Add(time.Hour)); ok {
		t.Fatalf("20,000 goroutines at 10 µs each allowed an hour later")
	}
	var first dumper // before any dump: the guess
	if est, ok := first.allow(1000, now); !ok || est != 1000*pausePerG {
		t.Fatalf("1,000 goroutines before any dump: %v, %v", est, ok)
	}
}

// TestDumperRetake: a dump that one stall made long refuses the dumps
// after it only for a while: while the fastest dump says the count fits,
// one retakes the measure a second after, then at doubling intervals,
// and a dump within the bound ends the retakes.
func TestDumperRetake(t *testing.T) {
	t0 := time.Now()
	d := dumper{best: 10 * time.Microsecond, perG: time.Millisecond, last: t0} // 1 s for 1,000
	steps := []struct {
		at   time.Duration
		want bool
	}{
		{10 * time.Millisecond, false},
		{999 * time.Millisecond, false},
		{time.Second, true}, // the retake, which stalls again
		{2900 * time.Millisecond, false},
		{3 * time.Second, true}, // 2 s after the first retake
		{6900 * time.Millisecond, false},
		{7 * time.Second, true}, // 4 s after
	}
	for _, s := range steps {
		now := t0.Add(s.at)
		if _, ok := d.allow(1000, now); ok != s.want {
			t.Fatalf("at %v: allowed %v, want %v", s.at, ok, s.want)
		}
		if s.want {
			d.last = now // as dump does
		}
	}
	d.perG = 10 * time.Microsecond // the last retake was within the bound
	if _, ok := d.allow(1000, t0.Add(7*time.Second+10*time.Millisecond)); !ok || d.retryGap != 0 {
		t.Fatalf("a dump within the bound did not end the retakes (gap %v)", d.retryGap)
	}
	d.perG = time.Millisecond // a new stall
	if _, ok := d.allow(1000, t0.Add(7*time.Second+20*time.Millisecond)); ok {
		t.Fatalf("a new stall retaken at once")
	}
	if _, ok := d.allow(1000, t0.Add(8*time.Second)); !ok {
		t.Fatalf("a new stall not retaken a second after the latest dump")
	}
	// With only a slow dump measured, nothing says the count fits.
	d = dumper{best: time.Millisecond, perG: time.Millisecond, last: t0}
	if _, ok := d.allow(1000, t0.Add(time.Hour)); ok {
		t.Fatalf("retaken without a dump that says 1,000 goroutines fit")
	}
}

// TestDumperMeasures: a dump sets the pause per goroutine, the fastest
// one, the text per goroutine and its time.
func TestDumperMeasures(t *testing.T) {
	var d dumper
	now := time.Now()
	b, pause, whole := d.dump(1, now)
	if len(b) == 0 || pause <= 0 || !whole || d.perG <= 0 || d.best != d.perG || d.bytesPerG <= 0 || !d.last.Equal(now) {
		t.Fatalf("%d bytes, pause %v, whole %v; per goroutine %v (best %v, %d bytes), at %v", len(b), pause, whole, d.perG, d.best, d.bytesPerG, d.last)
	}
}
