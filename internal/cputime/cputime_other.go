//go:build !linux

package cputime

import "time"

var epoch = time.Now()

// Thread falls back to wall time where thread CPU time is not wired up.
func Thread() time.Duration { return time.Since(epoch) }

// RunDelay returns 0 where the thread's run-queue time is not wired up.
func RunDelay() time.Duration { return 0 }

// Slices returns 0 where the thread's scheduling count is not wired up.
func Slices() int64 { return 0 }
