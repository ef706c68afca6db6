package profiler

import (
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

// The types and values of the options, so that the common case needs this
// package alone:
//
//	profiler.Start(profiler.WithMode(profiler.CPU))
//
// They are aliases: sampler.CPU and profiler.CPU are the same value.
type (
	// Mode is what is sampled (see WithMode): sampler.Mode.
	Mode = sampler.Mode
	// Backend is how the sampler reads the goroutines (see WithBackend):
	// sampler.Backend.
	Backend = sampler.Backend
	// Compression is how the sample region is stored (see
	// WithCompression): tachyon.Compression.
	Compression = tachyon.Compression
)

// Modes (see WithMode).
const (
	Wall = sampler.Wall // every live goroutine at every tick, on and off CPU (the default)
	CPU  = sampler.CPU  // one sample per CPU-profiling signal: goroutines on a CPU, and the scheduler outside them (thread 0)
)

// Backends (see WithBackend).
const (
	Auto     = sampler.Auto     // the execution trace when it can be read, else snapshots (the default)
	Trace    = sampler.Trace    // the execution trace, falling back to snapshots
	Snapshot = sampler.Snapshot // runtime.Stack snapshots
)

// Compressions (see WithCompression).
const (
	CompressionZstd = tachyon.CompressionZstd // zstd (the default)
	CompressionNone = tachyon.CompressionNone // none
)
