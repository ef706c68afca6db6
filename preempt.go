package profiler

import (
	"os"
	"strings"
)

// asyncPreemptOff reports whether godebug (GODEBUG's value) turns the
// runtime's asynchronous preemption off: asyncpreemptoff set to a value
// other than 0, the last setting winning, as the runtime reads it.
func asyncPreemptOff(godebug string) bool {
	off := false
	for kv := range strings.SplitSeq(godebug, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "asyncpreemptoff" {
			off = v != "" && v != "0"
		}
	}
	return off
}

// warnAsyncPreemptOff says, whatever WithQuiet, that the program runs
// without asynchronous preemption. Every second the runtime's execution
// trace (and a snapshot, every dump) waits until each goroutine on a CPU
// reaches a preemption point, holding a P and keeping the world from
// stopping while it waits: a goroutine in a loop without function calls
// then stalls the program for as long as the loop runs, as under
// trace.Start alone, where without the profiler it ran unhindered; Stop
// waits for such a loop too. The figures are in the README's limits.
func (p *Profile) warnAsyncPreemptOff() {
	if asyncPreemptOff(os.Getenv("GODEBUG")) {
		p.logf("profiler: GODEBUG=asyncpreemptoff=1: while it profiles, a goroutine in a loop without function calls holds up the other goroutines (and Stop) for as long as the loop runs, as under trace.Start; without asyncpreemptoff it does not")
	}
}
