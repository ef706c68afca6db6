// Package synth generates seeded, realistic sample streams for tests and
// benchmarks: several goroutines whose stacks of depth 10–40 mostly repeat,
// sometimes push or pop a few frames, and now and then jump elsewhere.
package synth
