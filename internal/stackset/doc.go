// Package stackset holds the latest stacks of many threads, shared by
// content: parked goroutines are mostly a few stacks many times over. A
// thread owns its stack while it changes (Own writes over it in place,
// without a hash); once it has held still for a batch, Share trades it
// for the copy of the same frames that others hold, counted by its
// holders, and Drop lets a holder's go after the last.
//
// A stack is keyed by a 64-bit hash of its frames (hash/maphash); one
// whose hash another stack of other frames already has stays its
// holder's own, so that no lookup compares more than one stack.
package stackset
