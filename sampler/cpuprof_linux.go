package sampler

import "golang.org/x/sys/unix"

// cpuTimerHz returns the rate of the runtime's CPU profiling timer
// (ITIMER_PROF, which the runtime sets while a CPU profile runs): 0 while
// no CPU profile runs.
func cpuTimerHz() int {
	it, err := unix.Getitimer(unix.ItimerProf)
	if err != nil {
		return unknownHz
	}
	us := it.Interval.Sec*1_000_000 + it.Interval.Usec
	if us <= 0 {
		return 0
	}
	return int((1_000_000 + us/2) / us)
}
