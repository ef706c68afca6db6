//go:build !race

package testutil

// Race says the tests run under the race detector (see race.go).
const Race = false
