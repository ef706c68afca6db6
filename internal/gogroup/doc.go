// Package gogroup is the one rule by which tachyon info and the HTML
// report (export/report) put goroutines in groups and name the groups:
// goroutines doing the same thing are one group.
//
// A goroutine's group is its start function: the outermost code frame of
// its first stack that has one, label frames (tachyon.LabelOf) left out.
// Frames of package runtime at the root (runtime.main, runtime.goexit)
// are passed over while a frame of the program's lies inside them. A
// runtime system goroutine, whose samples the Go sampler roots at
// tachyon.RuntimeRoot, starts at the frame under the root and is marked
// Runtime: the tools show those goroutines as one group of their own
// unless asked for them in full.
//
// A group is named after its start function, unless that is a function
// literal or a go statement's wrapper (F.func1, F.gowrap1): then after the
// function outside package runtime it calls in most of its members'
// samples (the first by name of those tied), so that the workers
// of "go func() { defer wg.Done(); work(ch) }()" are "work", not
// "main.func1". The group stays the start function's: the name is only
// its label.
package gogroup
