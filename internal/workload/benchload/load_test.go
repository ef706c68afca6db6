package benchload

import (
	"math"
	"runtime"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		v := append([]float64(nil), c.v...)
		if got := Median(v); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.v, got, c.want)
		}
		for i := range v {
			if v[i] != c.v[i] {
				t.Fatalf("Median reordered its input: %v", v)
			}
		}
	}
}

func TestMeanInterval(t *testing.T) {
	mean, half := MeanInterval([]float64{1, 2, 3, 4, 5})
	// sd = sqrt(2.5), t(4) = 2.776: half = 2.776 * sqrt(2.5) / sqrt(5).
	if mean != 3 || math.Abs(half-2.776*math.Sqrt(0.5)) > 1e-9 {
		t.Errorf("MeanInterval(1..5) = %v ±%v, want 3 ±%v", mean, half, 2.776*math.Sqrt(0.5))
	}
	if mean, half := MeanInterval([]float64{7}); mean != 7 || !math.IsNaN(half) {
		t.Errorf("MeanInterval(7) = %v ±%v, want 7 ±NaN", mean, half)
	}
	if mean, half := MeanInterval(nil); mean != 0 || !math.IsNaN(half) {
		t.Errorf("MeanInterval(nil) = %v ±%v, want 0 ±NaN", mean, half)
	}
	// Beyond the table, t falls toward the normal's 1.96: t(60) = 2.000.
	if got := t975(60); math.Abs(got-2.000) > 0.004 {
		t.Errorf("t975(60) = %v, want 2.000", got)
	}
}

func TestParkAndChurn(t *testing.T) {
	n0 := runtime.NumGoroutine()
	release := Park(100)
	// NumGoroutine counts the process's others too, which may end
	// meanwhile (the test runner's): a little slack either way.
	if n := runtime.NumGoroutine() - n0; n < 98 {
		t.Fatalf("%d more goroutines after parking 100", n)
	}
	stop := Churn(10000)
	time.Sleep(50 * time.Millisecond)
	stop()
	release()
	time.Sleep(20 * time.Millisecond) // the churn's last sleepers end
	if n := runtime.NumGoroutine() - n0; n > 2 {
		t.Fatalf("%d goroutines left after release and stop", n)
	}
}
