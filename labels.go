package profiler

import (
	"context"
	"runtime/pprof"
	"runtime/trace"
	"sync"
	"unsafe"

	"github.com/gotachyon/profiler/internal/tracelabel"
	"github.com/gotachyon/profiler/tachyon"
)

// Do calls f with a copy of ctx carrying labels added to ctx's own, as
// runtime/pprof's Do does, and sets them as the goroutine's labels while f
// runs: CPU profiles taken by anything else keep them, and a running
// profile carries them on every sample of the goroutine, on and off CPU.
// Goroutines started inside f inherit them. When f returns, the
// goroutine's labels are ctx's again.
//
// A profile sees labels set while it reads the execution trace (the trace
// backend): every sample of the goroutine then carries them, as label
// frames (see package tachyon), from the first tick after they were set.
// Labels set before the profile started, or before the Auto backend last
// went from runtime.Stack snapshots back to the trace, are not known to it
// until the goroutine sets its labels again; snapshot samples carry no
// labels. Labels set with runtime/pprof's own Do or SetGoroutineLabels are
// not seen: a profiler.Do inside a pprof.Do carries the pprof.Do's labels
// (they are ctx's), and, as the profile is not told when the pprof.Do
// returns, keeps them on the goroutine, and on the goroutines it starts,
// until the goroutine sets its labels again through this package. runtime/trace
// annotations (trace.NewTask, trace.WithRegion) label samples with their
// task and region without any call of this package.
//
// A set is carried whole up to the trace's bounds (64 labels, 1 KiB of
// keys and values, internal/tracelabel): past them, in key order, each
// label that still fits, so that one long value leaves out itself and not
// the labels after it.
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
	b := msgPool.Get().(*msgBuf)
	b.b = appendLabelMessage(b.b[:0], ctx)
	// The runtime copies the message into the trace before Log returns,
	// so it may be read from the pooled buffer.
	trace.Log(ctx, tracelabel.Category, unsafe.String(unsafe.SliceData(b.b), len(b.b)))
	msgPool.Put(b)
}

// msgBuf is a label message's buffer, pooled so that setting labels while
// a profile runs allocates no message.
type msgBuf struct{ b []byte }

var msgPool = sync.Pool{New: func() any { return &msgBuf{b: make([]byte, 0, 256)} }}

// appendLabelMessage appends ctx's labels as a label event's message to
// msg, as many as fit the bounds of internal/tracelabel: in key order,
// each that still fits, leaving out those no file can carry
// (tachyon.ValidLabelKey), which the sampler would drop.
func appendLabelMessage(msg []byte, ctx context.Context) []byte {
	n := 0
	pprof.ForLabels(ctx, func(k, v string) bool {
		if n == tracelabel.MaxLabels {
			return false
		}
		if !tachyon.ValidLabelKey(k) || len(msg)+tracelabel.Size(k, v) > tracelabel.MaxBytes {
			return true // this one does not fit; a later one may
		}
		msg = tracelabel.Append(msg, k, v)
		n++
		return true
	})
	return msg
}
