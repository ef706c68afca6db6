package profiler

import (
	"context"
	"runtime/pprof"
	"runtime/trace"

	"github.com/gotachyon/profiler/internal/tracelabel"
)

// Do calls f with a copy of ctx carrying labels added to ctx's own, as
// runtime/pprof's Do does, and sets them as the goroutine's labels while f
// runs: CPU profiles taken by anything else keep them, and a running
// profile carries them on every sample of the goroutine, on and off CPU.
// Goroutines started inside f inherit them. When f returns, the
// goroutine's labels are ctx's again.
//
// A profile sees labels set while it reads the execution trace (the trace
// backend); with runtime.Stack snapshots its samples carry none.
func Do(ctx context.Context, labels pprof.LabelSet, f func(context.Context)) {
	defer SetGoroutineLabels(ctx)
	ctx = pprof.WithLabels(ctx, labels)
	SetGoroutineLabels(ctx)
	f(ctx)
}

// SetGoroutineLabels sets the current goroutine's labels to ctx's, as
// runtime/pprof's SetGoroutineLabels does, and tells a running profile.
// Most callers should use Do.
func SetGoroutineLabels(ctx context.Context) {
	pprof.SetGoroutineLabels(ctx)
	if !tracelabel.Enabled() {
		return
	}
	var msg []byte
	pprof.ForLabels(ctx, func(k, v string) bool {
		msg = tracelabel.Append(msg, k, v)
		return len(msg) <= tracelabel.MaxBytes
	})
	trace.Log(ctx, tracelabel.Category, string(msg))
}
