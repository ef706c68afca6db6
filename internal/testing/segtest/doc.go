// Package segtest makes and compares segment files for the tests of
// package merge and of the tachyon command: a profile split at given
// timestamps into consecutive files, as a profiler writing segments would
// have written it, and a comparison of two profiles sample by sample.
package segtest
