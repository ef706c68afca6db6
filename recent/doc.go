// Package recent keeps the recent past of a profile in memory, bounded,
// so that the last seconds can be written out on demand while profiling
// goes on: a Window takes the sampler's samples (as a sampler.Sink of its
// own, or beside the profile's file through Tee) and keeps them in the
// writer's own encoding, a series of in-memory Tachyon files (chunks) in
// zstd, each covering a slice of the window (Options.Duration cut into
// Options.Chunks), written by a writer.Writer that is reused from chunk to
// chunk. Keeping them costs a second encoding of each sample, which for
// the runs of repeats of parked goroutines is a few bytes copied.
//
// The window drops its oldest chunks once all their samples are older
// than Duration, and earlier when it holds more than Options.MaxBytes:
// the chunks' bytes, the open chunk's buffer and writer, and its state
// per goroutine (estimated from the measured sizes in
// bench/MEASUREMENTS.md). Ended goroutines (Forget) release their state,
// and a chunk's rollover releases the state the writer held for the
// goroutines of the last one.
//
// WriteFile writes one finalized Tachyon file of the samples of a time
// span, cut from the chunks that overlap it with package reader: a run of
// repeats across the span's ends is cut there. The sampler writes the
// samples of the last moments late, and a sample's goroutine decides
// when: WriteFile waits for the sampler's watermark to pass the span's
// end (at most Options.MaxWait) and states the span it covers exactly
// (Span), which is shorter than asked when the window does not hold it
// all.
package recent
