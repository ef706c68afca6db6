//go:build race

package testutil

// Race says the tests run under the race detector: programs they build are
// built with it too, and sync.Pool drops some of the buffers put back,
// which tests that count allocations must allow for.
const Race = true
