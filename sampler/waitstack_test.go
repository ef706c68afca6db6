package sampler

import "testing"

// reasonSource is a source that knows only its wait reasons.
type reasonSource struct {
	source
	reasons []string
}

func (r reasonSource) Reason(i uint32) string {
	if int(i) < len(r.reasons) {
		return r.reasons[i]
	}
	return ""
}

// The trace backend's waitStack, which looks each reason's frame up once,
// gives the stack the emitter gives for the reason named the long way: the
// stack's hint, else the source's reason in the canonical vocabulary.
func TestWaitStackCached(t *testing.T) {
	for _, noFrames := range []bool{false, true} {
		em := newEmitter(Config{Mode: Wall, Rate: 100, NoWaitReasonFrames: noFrames}, newMemSink())
		tb := &traceBackend{em: em, rd: reasonSource{reasons: []string{"", "chan receive", "sync", "network", "sync.(*Cond).Wait"}}}
		hinted := &stack{frames: []uint32{1, 2}, hint: "sleep"}
		plain := &stack{frames: []uint32{3}}
		for range 2 { // the second time from the caches
			for why := range uint32(7) {
				if got, want := tb.waitStack(hinted, why), em.waitStack(hinted, "sleep"); got != want {
					t.Errorf("NoWaitReasonFrames %v, hinted, why %d: frames %v, want %v", noFrames, why, got.frames, want.frames)
				}
				want := em.waitStack(plain, canonReason(tb.rd.Reason(why)))
				if got := tb.waitStack(plain, why); got != want {
					t.Errorf("NoWaitReasonFrames %v, why %d (%q): frames %v, want %v", noFrames, why, tb.rd.Reason(why), got.frames, want.frames)
				}
			}
		}
		if noFrames && tb.waitStack(plain, 1) != plain {
			t.Error("NoWaitReasonFrames: the stack changed")
		}
	}
}
