// Package own keeps the set of goroutines that are the profiler's own, by
// goroutine id, so that the sampler can leave them out of every profile
// wherever they run: the sampler's supervisor, watchers and flight
// recorder poller, the segment writer's goroutine, the root package's
// recovery of a dead run's checkpoints, the uploader and the network
// goroutines of its connections, the signal handler of package auto, and
// the goroutine of a request that httpprof serves, while it serves it.
//
// A goroutine is the profiler's by identity, never by the functions it
// runs: a program's goroutine that calls into the profiler (Stop, a
// segment hook, a handler) is the program's, and is sampled.
//
// Go starts a goroutine that is the profiler's for its whole life; Enter
// makes the calling goroutine the profiler's until it leaves. Has answers
// whether an id is the profiler's, without a lock, for the sampler, which
// reads the execution trace a few seconds late: an id stays in the set for
// Grace after its goroutine ended or left, so that the events of its last
// moments are still left out. Version changes whenever the set does, for
// a caller that caches answers.
//
// Claim and Release make another goroutine than the caller's the
// profiler's, and give it back. Package ownnet's Dial and Conn use them
// for a connection the profiler makes itself: they claim the goroutines
// that dial, read and write it (net/http's and gRPC's transports start
// them, out of the profiler's reach), until the connection is closed.
package own
