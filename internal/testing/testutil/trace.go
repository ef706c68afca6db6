package testutil

import (
	"bytes"
	"io"
	"runtime/pprof"
	rtrace "runtime/trace"
	"testing"
	"time"
)

// Trace records d of this process's execution trace with the CPU profiler
// alongside (its samples reach the trace), as the sampler's trace backend
// runs them.
func Trace(tb testing.TB, d time.Duration) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(io.Discard); err == nil {
		defer pprof.StopCPUProfile()
	}
	if err := rtrace.Start(&buf); err != nil {
		tb.Fatalf("cannot trace: %v", err)
	}
	time.Sleep(d)
	rtrace.Stop()
	return buf.Bytes()
}
