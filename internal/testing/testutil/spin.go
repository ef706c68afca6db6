package testutil

import (
	"runtime"
	"sync/atomic"
	"time"

	"github.com/gotachyon/profiler/internal/cputime"
	"github.com/gotachyon/profiler/internal/goid"
)

// Spin starts a goroutine that runs fn on a thread of its own until stop
// is called, and returns the goroutine's id and stop, which returns the
// CPU time the goroutine used (its thread's clock): what a test compares
// a profile's samples of the goroutine with. fn must return once its
// argument is true.
func Spin(fn func(stop *atomic.Bool)) (id uint64, stop func() time.Duration) {
	var done atomic.Bool
	idc, cpuc := make(chan uint64, 1), make(chan time.Duration, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		idc <- goid.Current()
		c0 := cputime.Thread()
		fn(&done)
		cpuc <- cputime.Thread() - c0
	}()
	return <-idc, func() time.Duration {
		done.Store(true)
		return <-cpuc
	}
}
