package sampler

import (
	"testing"
	"time"
)

func TestSmoke(t *testing.T) {
	for _, b := range []Backend{Trace, Snapshot} {
		sink := newMemSink()
		ch := make(chan int)
		go func() { <-ch }()
		s, err := Start(Config{Backend: b}, sink)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
		st, err := s.Stop()
		t.Logf("%v %+v %v", s.Backend(), st, err)
		close(ch)
		seen := map[string]bool{}
		for _, x := range sink.all() {
			k := x.String()
			if !seen[k] {
				seen[k] = true
				t.Log(k)
			}
		}
	}
}
