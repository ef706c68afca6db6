//go:build !race

package profiler_test

// raceBuild says the tests run under the race detector: programs they
// build are built with it too.
const raceBuild = false
