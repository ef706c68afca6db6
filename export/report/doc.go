// Package report turns a Tachyon profile into one self-contained HTML file:
// a zoomable, searchable flame graph, a timeline of the busiest goroutines
// colored by scheduling state, a sortable table of the top functions and a
// header with the profile's facts.
//
// Aggregate reads the samples once and keeps only aggregates: a call tree
// with sample counts (pruned to Options.MaxNodes nodes for the page), the
// functions' self and total counts, and for each goroutine its state over
// time in Options.Buckets time buckets. Write embeds those aggregates as JSON
// in an HTML page whose script and style are part of this package (see
// report.html), so the page needs no network and its size does not grow with
// the number of samples.
//
// Goroutine states come from the samples' status bits (tachyon.Status.State);
// the synthetic innermost frame the Go sampler adds for a parked goroutine's
// wait reason, a function named like "[chan receive]", is shown as a frame of
// its own.
package report
