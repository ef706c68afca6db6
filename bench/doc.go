// Package bench holds the profiler's overhead and fidelity benchmarks, with
// fgprof as the peer in the same process. The figures they gave, with the
// commands and dates, and those behind the code's tunables, are in
// MEASUREMENTS.md beside this file. It has no code of its own; run
//
//	go test ./bench -run '^$' -bench Overhead -benchtime 5x -window 5s
//
// Each benchmark iteration is a pair of windows, one without profiling and
// one with it (in alternating order), over a load of GOMAXPROCS CPU-bound
// workers. It reports, as medians over the pairs:
//
//	lost%           work lost per process CPU-second: 1 - (ops per CPU-second
//	                profiled) / (ops per CPU-second in the paired baseline),
//	                in percent; the profiled window includes Start and Stop
//	Hz              sampling rate achieved (fgprof: estimated as samples /
//	                goroutines / seconds)
//	p99late-us      p99 lateness of a goroutine looping time.Sleep(1ms),
//	                over all the profiled windows pooled (a single window's
//	                p99 swings widely on a shared machine)
//	base-p99late-us the same over all the baseline windows
//	base-ops/s      the load's ops per wall second without profiling (for
//	                pingpong, goroutine switches: 2 per op)
//
// Flags: -window (1s; Start and Stop are inside the window, and Stop's
// cost grows with the goroutines, so 5s is closer to a real profile),
// -backend (auto), -wallcpu (true: tachyon's wall mode runs the CPU
// profiler, its default; -wallcpu=false leaves it off), -workers
// (GOMAXPROCS: saturated, as in the table; with every P busy the
// 1 ms sleeper waits for preemption, so its lateness measures the load more
// than the profiler: use -workers 1 on 2 CPUs to measure the lateness the
// profiler adds), -hopspin (5000), and for BenchmarkIdle -idle (10000) and
// -settle (7s).
//
// Loads: cpu-N is the CPU-bound workers plus N goroutines parked in a channel
// receive ten frames deep; pingpong is goroutine pairs bouncing a token over
// unbuffered channels with a short spin per hop (a high scheduler event rate,
// the trace backend's worst case). Profilers: tachyon (wall mode, 100 Hz,
// Auto backend unless -backend says otherwise, writing a zstd file),
// trace-floor (not a profiler: the runtime writing the execution trace into
// io.Discard, the part of the wall-mode trace backend's cost that no parser
// can remove), trace+cpu-floor (the same with the CPU profiler alongside, as
// in CPU mode and in wall mode by default, so tachyon's floor) and fgprof
// v0.9.5 (99 Hz, pprof).
//
// BenchmarkOverheadFloor measures tachyon against trace+cpu-floor side by
// side on the cpu-N loads: each iteration runs an unprofiled window, a floor
// window and a tachyon window in rotating order, and it reports each one's
// lost% and p99late-us and above-floor-pp, the median over iterations of
// tachyon's lost% minus the floor's in the same iteration (the pairing
// cancels most of the drift of a shared machine):
//
//	go test ./bench -run '^$' -bench OverheadFloor -benchtime 9x -window 5s
//
// BenchmarkFidelity measures accuracy instead: each iteration runs the
// ground-truth workload of internal/workload/groundtruth (goroutines that record their
// own phases) for one -window under each of tachyon in wall mode, tachyon in
// wall mode with WithWallCPUSamples(false), and fgprof, in rotating order,
// and scores each profile against the record: tachyon's per goroutine
// (groundtruth.Score), fgprof's, which has no goroutine ids, per role
// (groundtruth.ScoreAggregate). It logs, per role, the median over the
// iterations of the role's largest function-share error in percentage
// points (the share of its samples in each phase function against the share
// of its time there), the three profilers side by side, and reports the
// largest over the roles as tachyon-max-pp, tachyon-nocpu-max-pp and
// fgprof-max-pp; -v also logs every profile's full score. The -window
// default is too short for shares to settle; run
//
//	go test ./bench -run '^$' -bench Fidelity -benchtime 1x -window 20s
//
// (three windows of 20 s per iteration; -backend applies to tachyon,
// -wallcpu does not: both settings are run).
//
// BenchmarkIdle measures what profiling costs a process that does
// nothing: -idle goroutines parked ten frames deep, under no profiler,
// trace-floor, trace+cpu-floor and tachyon in turn, each measured for one
// -window after -settle. It reports each one's CPU in ms per second and
// heap allocation in KB per second, and tachyon's paired excess over
// trace+cpu-floor:
//
//	go test ./bench -run '^$' -bench Idle -benchtime 5x -window 5s
//
// BenchmarkScale measures the same at many goroutines (issue 31): a
// program of N goroutines parked ten frames deep, N from -scale
// (10,000 and 100,000; 1,000,000 takes minutes and some 5 GB a process),
// each peer in a child process of its own so that its resident set is its
// own: the floor (trace+cpu-floor), tachyon (wall mode to a path: its
// checkpoints, merged at Stop), tachyon-out (wall mode into one file),
// tachyon-recent (tachyon keeping a minute's recent window, as a profile
// in segments does; run only when named in -scale-peers) and fgprof (up
// to 100,000), in rotating order, each settled for
// -scale-settle (15 s) and measured over one -window, which begins and
// ends where a trace generation's end has just been worked through, so
// that it holds whole generations (-scale-align). It reports each one's
// CPU (rusage), and each tachyon's CPU over the floor's in percent,
// resident set (at the window's end, its mean and its peak over the
// window) and live heap over the floor's per goroutine, Stop and
// achieved rate, paired with the floor in the same iteration:
//
//	go test ./bench -run '^$' -bench Scale -benchtime 3x -window 10s -scale 10000,100000,1000000
package bench
