// Package groundtruth runs goroutines that record what they do, and scores a
// profile of them against that record.
//
// Each goroutine of the workload has a role and goes through phases, each a
// function of its own (handlerRead, handlerCompute, spinA, ...), and logs
// every phase it enters with its wall time and, for goroutines locked to a
// thread, the thread's CPU time. Score reads a Tachyon file written while
// the workload ran and compares, per goroutine, over the profiled window:
//
//   - function shares: the share of its samples whose stack holds each phase
//     function, against the share of time (wall mode) or CPU time (CPU mode)
//     it spent in that phase;
//   - state shares: waiting, in a system call, or active (running or
//     runnable), against the phases' states;
//   - presence: the share of the wall ticks at which it has a sample;
//   - the wait-reason frame of its waiting samples.
//
// The roles cover what a wall profiler must get right: a handler that wakes
// from a network read and computes, a goroutine on a duty cycle, a spinner
// splitting its time three ways with random cycle lengths (so that ticks
// cannot alias with it), a sleeper, a channel waiter, a mutex waiter, a
// goroutine in a raw blocking system call and an idle pool.
package groundtruth
