//go:build race

// Package race reports whether the race detector is on, for tests that
// measure allocations: under it, sync.Pool drops some of the buffers put
// back, which are then allocated again.
package race

// Enabled reports whether the race detector is on.
const Enabled = true
