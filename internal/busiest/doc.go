// Package busiest finds a file's busiest threads, for the exports that keep
// detail (labels, timelines) for a bounded number of threads and fold the
// others: a file of a million goroutines must not cost a million records.
package busiest
