//go:build !race

package otlp_test

// raceEnabled reports whether the race detector is on.
const raceEnabled = false
