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
// whether an id is the profiler's now, and HadAt whether it was at a
// sample's time, without a lock, for the sampler, which writes samples
// seconds after their time: an id stays in the set for Grace after its
// goroutine ended or left, with the time it did, so that the samples of
// its last moments as the profiler's are left out however late they come,
// and those after are the program's. Version changes whenever the set
// does, for a caller that caches answers.
//
// Claim and Release make another goroutine than the caller's the
// profiler's, and give it back. Package ownnet's Dial and Conn use them
// for a connection the profiler makes itself: they claim the goroutines
// that dial, read and write it (net/http's and gRPC's transports start
// them, out of the profiler's reach), until the connection is closed.
package own
