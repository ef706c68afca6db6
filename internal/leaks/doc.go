// Package leaks finds the goroutines of wall profiles that wait and never
// come back: blocked in one wait for a whole stretch of the profile,
// grouped by where they were created (the label tachyon.LabelCreatedBy)
// and where they wait, with their count over time, so that a group that
// only grows stands out. Both `tachyon leaks` and the HTML report's leaks
// view read a profile through Analyze.
//
// The time of the profile is cut in equal slices: as many as a run has
// segments (the samples of a segment are not all of its own time: a
// parked goroutine's ticks are written a few seconds late), and for one
// file about one a second (at least 3, at most 12). A goroutine counts in a slice's column if it is
// there from the slice's start to its end (its samples cover it, two
// sampling intervals either side) and every one of its samples in it is
// blocked (or in a system call) at one stack, its code frames: it never
// woke there, as far as the samples show. A goroutine that wakes and
// blocks again at the same place between two samples looks the same as
// one that never woke: the samples cannot tell them apart, so a group of
// such workers has a count of its own. What tells them from a leak is
// the count over time: a pool's is flat, a leak's only grows. A group
// grows (Group.Grows) if its count rises and its last slice holds at
// least two goroutines that came in the profile's second half; a pool
// whose workers were there before never grows, however its count wavers
// as the samples catch some of them awake. A group is listed
// (Group.Listed) if it grows, or if the runtime proved any of its
// goroutines can never wake (the label tachyon.LabelLeak, from Go 1.27's
// goroutine leak profile); the others blocked through the last slice are
// counted in Result.Flat: idle pools, or leaks older than the profile.
//
// A goroutine's labels other than the creation site (pprof labels, task,
// region, the leak mark) are not part of its group: they do not change
// while it is blocked, but the mark can come in the middle of a wait.
package leaks
