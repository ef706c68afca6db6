// Package demo is the bundled workload of "tachyon demo": a process with a
// known shape, so that a profile of it can be checked against the truth.
//
// While Run runs, the process holds (function names relative to this
// package, all kept out of inlining):
//
//	spin         one goroutine, locked to its thread, alternating hotA and
//	             hotB in short slices of random length (0.5–1.5 ms), 60 % of
//	             its measured thread CPU time in hotA and 40 % in hotB
//	             (not iteration counts: the split is by CLOCK_THREAD_CPUTIME_ID
//	             on Linux, by wall time elsewhere)
//	sleeper      Sleepers goroutines in time.Sleep (wait reason "sleep")
//	blockedOnChan one goroutine in a channel receive ("chan receive")
//	waitPipe     one goroutine reading an empty pipe through the poller
//	             ("IO wait")
//	readSyscall  one goroutine in a blocking read(2) of an empty pipe (state
//	             syscall)
//	idleWorker   Goroutines goroutines of an idle pool in a select ("select")
//
// Summarize reads a profile back and measures, per role, the samples and
// their states; the CLI prints it and the fidelity tests check it.
package demo
