//go:build !linux

package sampler

// cpuTimerHz returns unknownHz: the CPU profiling timer is read on Linux
// only.
func cpuTimerHz() int { return unknownHz }
