// Command service measures what profiling costs a real service: a net/http
// JSON server in this process (one route, GET /item, served through a
// ServeMux), under a fixed offered load from a load
// generator in a second process (this program, re-executed with -loadgen),
// over keep-alive connections on 127.0.0.1.
//
//	go run ./bench/service -parked 10000 -windows 9 -window 10s
//
// Each round runs one window per condition, in an order that rotates from
// round to round:
//
//	none                 no profiler
//	none+labels          no profiler, routes labelled (httpprof.Labels)
//	trace-floor          the runtime's execution trace into io.Discard
//	trace+cpu-floor      the same with the CPU profiler alongside: wall
//	                     mode's floor, which no trace parser can go below
//	tachyon-wall         gotachyon, wall mode, 100 Hz, zstd file
//	tachyon-wall+labels  the same with the routes labelled: every request
//	                     sets its labels, and the profile reads them
//	tachyon-wall+recent  the same keeping a recent window of a minute
//	                     (profiler.WithRecent, PROFILE_RECENT=60s)
//	tachyon-cpu          gotachyon, CPU mode, 100 Hz, zstd file
//	fgprof               felixge/fgprof, 99 Hz, pprof into memory
//	pprof-cpu            runtime/pprof's CPU profile into memory
//
// A condition's profiler starts, then -settle passes, then the window is
// measured, then the profiler stops: Start and Stop are outside the window
// and timed on their own. The runtime begins a generation of its trace
// about every second from the trace's start, and a trace parser's Stop
// waits for the parse of the generation in progress: with -settle and
// -window that add up to whole seconds (the defaults), every Stop comes
// just before a generation ends, the slowest moment to stop;
// -settle 1.5s stops halfway through one (bench/MEASUREMENTS.md). The
// program prints, per condition, medians over the rounds (with the range)
// of
//
//	cpu/1k-ms   server CPU (the whole process's user+system time) per 1,000
//	            requests answered in the window
//	over-floor% the paired excess over trace+cpu-floor in the same round,
//	            100*(cpu/1k / floor's cpu/1k - 1): the pairing cancels most
//	            of a shared machine's drift
//	over-floor-mean%  the mean of the same excess over the rounds, ± the
//	            half-width of its 95 % confidence interval: a shared
//	            2-core host spreads the rounds by about ten points, and
//	            to resolve a point or two takes tens of rounds (-windows)
//	over-twin%  for a condition with a twin (+labels, +recent), the same
//	            paired excess over its twin: what labelling the routes, or
//	            keeping the recent window, costs
//	p50/p99/p99.9-us  latency from the request's send to its response
//	p99q-us     p99 latency from the request's scheduled time (open loop:
//	            queueing behind a slow server counts)
//	start-ms, stop-ms  Start and Stop latency (each round's line on
//	            stderr also gives the parts of a gotachyon Stop that were
//	            the runtime's stop of its tracer, Stats.RuntimeStop, and
//	            the parse and writes after it, Stats.StopParse; the rest
//	            is the file's finish)
//	stop-own-ms for gotachyon, the median of Stop less the runtime's
//	            stop: the profiler's own part
//	heap-MiB    the live heap at the window's end, as of the last collection
//
// Loads: -parked goroutines blocked ten frames deep in a channel receive;
// -churn new goroutines per second, each sleeping 5 ms, then exiting.
// Flags -rate (30000 requests/s) and -conns (64) shape the offered load;
// -conditions picks a comma-separated subset. -heaplog d logs the heap every
// d during each window and reports its slope after the first minute
// (heap-slope-MiB/min), for long churn runs:
//
//	go run ./bench/service -churn 60000 -conditions tachyon-wall -windows 1 -window 10m -heaplog 10s
package main
