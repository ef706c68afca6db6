// Package speedscope converts a Tachyon profile into speedscope's JSON file
// format (https://www.speedscope.app/file-format-schema.json), for the
// speedscope viewer's time-order, left-heavy and sandwich views.
//
// Every goroutine (thread id) among the Options.Top busiest becomes one
// "sampled" profile of its own, named "goroutine N"; the other goroutines
// are merged into one profile named "other goroutines (N)", unless there
// is only one, which keeps a profile of its own. The profiles come
// busiest first, so that speedscope opens on the busiest: busiest means
// most samples on a CPU (tachyon.State.OnCPU: running, not in a system
// call), then most waiting for one (runnable), then most samples, then
// the lowest id; the runtime's system goroutines (under "[runtime]")
// come after the program's. A goroutine parked all along, however long
// (os/signal.loop), so comes after every goroutine that ran or wanted
// to. A profile lists its goroutine's
// samples in time order, each run of equal consecutive stacks as one
// sample whose weight is the run's length times the file's interval, in
// microseconds (the file's time unit); so a profile's total weight is its
// goroutine's sample count × interval. All profiles share one frame table:
// the file's frames, named by function, with file and line. The Go
// sampler's synthetic frames stay as they are: a wait reason (such as
// "[chan receive]") innermost, so a parked goroutine's time shows under
// its reason, "[no CPU sample]" innermost in a runnable sample, and
// "[runtime]" outermost in every sample of the runtime's system
// goroutines, which so make one group. Label frames (tachyon.LabelOf), the
// outermost frames of a labelled goroutine's samples, are left out of the
// stacks unless Options.Labels keeps them at the root.
package speedscope
