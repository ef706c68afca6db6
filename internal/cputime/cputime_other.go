//go:build !linux

package demo

import "time"

var epoch = time.Now()

// threadCPU falls back to wall time where thread CPU time is not wired up.
func threadCPU() time.Duration { return time.Since(epoch) }
