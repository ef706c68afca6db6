// Package limits names the bounds the exporters put on what a profile may
// make them keep in memory or write, and the error they return past one.
// A small file can describe a huge profile (a million distinct deep stacks,
// a million goroutines): an export refuses it rather than take gigabytes.
//
// An exporter returns a *Error wrapped with its own context; find it with
// errors.As (or errors.AsType) to tell which limit was passed.
package limits
