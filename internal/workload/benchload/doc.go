// Package benchload holds the synthetic loads and the measures that the
// benchmarks (package bench, commands bench/service and bench/gcroom) and
// the memory tests share: goroutines parked deep in a channel receive,
// goroutine churn, the median, the mean with its confidence interval,
// and the resident set.
package benchload
