//go:build race

package otlp_test

// raceEnabled reports whether the race detector is on: sync.Pool then
// drops some of the buffers put back, and gRPC allocates them again.
const raceEnabled = true
