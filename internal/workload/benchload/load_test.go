package benchload

import (
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
