package sampler

import (
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// writerSource is a knownSource whose stack 1 is the program's CPU
// profile reader, as the trace shows it: runtime.goexit left out.
type writerSource struct{ knownSource }

func (s *writerSource) Stack(id uint64) []gotrace.Frame {
	if id != 1 {
		return s.knownSource.Stack(id)
	}
	return []gotrace.Frame{
		{PC: 0x3000, Func: "runtime/pprof.readProfile", File: "cpuprof.go", Line: 251},
		{PC: 0x4000, Func: "runtime/pprof.profileWriter", File: "pprof.go", Line: 930},
	}
}

// TestHiddenStartedBeforeTrace: the program's CPU profile reader, started
// before the trace, is left out as the snapshot backend leaves it out (by
// its outermost frame), not sampled in a system call for the whole
// profile.
func TestHiddenStartedBeforeTrace(t *testing.T) {
	const g = 9
	src := &writerSource{knownSource{known: map[uint64]bool{g: true}, users: map[uint64]uint32{}}}
	mem := newMemSink()
	tb := newTraceBackend(newEmitter(Config{Mode: Wall, Rate: 100}, mem), src, time.Now().Add(-time.Second))
	ms := gotrace.Time(time.Millisecond)
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Transition, Time: 1 * ms, G: g, From: gotrace.GoUndetermined, To: gotrace.GoSyscall, Stack: 1})
	tb.handle(&gotrace.Event{Kind: gotrace.Sync, Time: 500 * ms})
	tb.finish(false)
	if n := len(mem.of(g)); n != 0 {
		t.Errorf("%d samples of the program's CPU profile reader, want 0: %v", n, mem.of(g)[0])
	}
}
