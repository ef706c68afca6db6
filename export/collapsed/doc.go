// Package collapsed aggregates a profile into folded stacks, the text
// format of flamegraph.pl: one line per distinct stack, frames from the
// outermost to the innermost joined with ';', a space, and the number of
// samples.
//
// Lines and Write produce the format of the shared test vectors
// (file:function:line frames, threads merged) with zero Options; other
// Options give shorter frame formats, a "goroutine N" root frame per goroutine,
// and a filter on the goroutine state (tachyon.State) of a sample's
// status bits. The Go sampler's synthetic frames stay in the stacks: a
// wait reason (tachyon.WaitFrame) and "[no CPU sample]" innermost,
// "[runtime]" outermost, so the runtime's system goroutines make one
// tower. Label frames (tachyon.LabelOf), the outermost frames of a
// labelled goroutine's samples, are left out unless Options.Labels keeps
// them at the root.
package collapsed
