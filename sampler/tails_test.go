package sampler

import (
	"fmt"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// TestOneTailPerWait checks that one kind of wait has one stack: a
// goroutine blocked before Start (the trace shows its stack at a
// generation's start) and one that blocks after (the trace shows the stack
// of its block event) end in the same frames, in both backends, and the
// backends agree.
func TestOneTailPerWait(t *testing.T) {
	names := []string{"chan", "select", "mutex", "waitgroup", "io"}
	testutil.Retry(t, 300*time.Millisecond, 3, func(d time.Duration) error {
		tails := map[string]string{}
		for _, b := range []Backend{Trace, Snapshot} {
			early, late, err := blockedEarlyAndLate(t, b, d)
			if err != nil {
				return err
			}
			for _, name := range names {
				e, l := early[name], late[name]
				if e == "" || l == "" {
					return fmt.Errorf("%v: %s: no blocked sample (before Start %q, after %q)", b, name, e, l)
				}
				if e != l {
					t.Errorf("%v: %s has two tails:\nblocked before Start %s\nblocked after       %s", b, name, e, l)
				}
				if other, ok := tails[name]; ok && other != e {
					t.Errorf("%s: the backends differ:\ntrace    %s\nsnapshot %s", name, other, e)
				}
				tails[name] = e
			}
		}
		return nil
	})
}

// blockedEarlyAndLate samples one workload started before Start and one
// started after, for d, and returns each workload's last blocked stack by
// goroutine name, as text.
func blockedEarlyAndLate(t *testing.T, b Backend, d time.Duration) (early, late map[string]string, err error) {
	sink := newMemSink()
	we := startWorkload(t, false)
	defer we.Stop()
	s, err := Start(Config{Backend: b}, sink)
	if err != nil {
		return nil, nil, err
	}
	time.Sleep(d / 2)
	wl := startWorkload(t, false)
	defer wl.Stop()
	time.Sleep(d)
	if _, err := s.Stop(); err != nil {
		return nil, nil, err
	}
	last := func(w *workload) map[string]string {
		out := map[string]string{}
		for name, id := range w.ids {
			for _, smp := range sink.of(id) {
				if smp.status.OnCPU() {
					continue
				}
				// Code frames: the creation-site label of the goroutines
				// blocked before Start is not known to the trace.
				txt := fmt.Sprint(smp.stack[:tachyon.SplitLabels(len(smp.stack), func(i int) bool { return tachyon.IsLabel(smp.stack[i]) })])
				out[name] = txt
			}
		}
		return out
	}
	return last(we), last(wl), nil
}
