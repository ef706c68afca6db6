package testutil

import "time"

// WaitFor polls cond every few milliseconds until it holds or timeout has
// passed, and reports whether it held. Tests use it instead of sleeping a
// fixed time for something that takes longer on a loaded machine (a
// goroutine to exit, a sampler to switch backends, a first sample): the
// timeout is only a bound against hanging, so make it generous.
func WaitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}
