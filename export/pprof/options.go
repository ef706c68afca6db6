package pprof

import "fmt"

// Type chooses the kind of profile: wall-clock or CPU.
type Type uint8

// Types of profile.
const (
	Auto Type = iota // CPU when every sample is on a CPU (tachyon.InferMode), else wall
	Wall             // samples, wall and on_cpu values
	CPU              // samples and cpu values of the on-CPU samples only
)

// ParseType returns the Type named "auto", "wall" or "cpu".
func ParseType(s string) (Type, error) {
	switch s {
	case "auto", "":
		return Auto, nil
	case "wall":
		return Wall, nil
	case "cpu":
		return CPU, nil
	}
	return 0, fmt.Errorf("unknown profile type %q (want wall, cpu or auto)", s)
}

// Options configure Convert. The zero value chooses the type automatically.
type Options struct {
	Type Type
	// Binary is the path of the profiled Go executable (ELF), or "". When
	// set, it names the main mapping (the "File:" of go tool pprof), and
	// its line table gives each function its Function.start_line, which
	// go build -pgo needs; Convert fails if it cannot read that table.
	// Without it the mapping is named after the program the frames show
	// and start lines are 0.
	Binary string
	// MaxStackFrames bounds the frames kept across the profile's distinct
	// stacks, and so the export's memory; 0 means
	// stacktab.DefaultMaxFrames (4 M frames). Past it Convert fails with
	// a *limits.Error (limits.StackFrames).
	MaxStackFrames int
	// MaxGoroutines bounds the goroutines that keep their own goroutine
	// label (each costs a pprof sample per stack and state, about half a
	// kilobyte); the busiest keep it, the others are merged under
	// goroutine="other". 0 means DefaultMaxGoroutines. A negative value
	// keeps no goroutine label at all: samples that differ only by
	// goroutine are added together, in one pass over the file (what a
	// profile store wants, whose labels become series).
	MaxGoroutines int
	// MaxSamples bounds the profile's distinct samples (stack, goroutine
	// and state), some 400 bytes each while converting; past it Convert
	// fails with a *limits.Error (limits.Samples). 0 means
	// DefaultMaxSamples.
	MaxSamples int
	// MaxSampleFrames bounds the frames the profile's distinct samples
	// list in all, each sample its stack's, 8 bytes each while encoding
	// and 1-3 in the file: a few kilobytes of Tachyon file can give
	// hundreds of goroutines stacks 65,536 frames deep. Past it Convert
	// fails with a *limits.Error (limits.SampleFrames). 0 means
	// DefaultMaxSampleFrames.
	MaxSampleFrames int
}

// DefaultMaxSamples is the default Options.MaxSamples.
const DefaultMaxSamples = 250_000

// DefaultMaxSampleFrames is the default Options.MaxSampleFrames:
// DefaultMaxSamples samples 64 frames deep.
const DefaultMaxSampleFrames = 16 << 20

// MaxLocations bounds the profile's distinct (function, line) locations,
// some 250 bytes each in memory: past it, the further lines of a function
// share one location with line 0, so that a file of a million distinct
// frames converts in bounded memory with its functions intact.
const MaxLocations = 250_000

// DefaultMaxGoroutines is the default Options.MaxGoroutines.
const DefaultMaxGoroutines = 100_000

// OtherGoroutines is the goroutine label of the samples merged past
// Options.MaxGoroutines.
const OtherGoroutines = "other"

// Label keys of the exported samples.
const (
	LabelGoroutine  = "goroutine"
	LabelState      = "state"
	LabelWaitReason = "wait_reason"
)

// Sample types (pprof value types) of the exported profiles.
const (
	// TypeSamples counts Tachyon samples (unit "count"), in every profile.
	TypeSamples = "samples"
	// TypeWall is the samples' wall time, count × interval in nanoseconds,
	// whatever their state: the time goroutines spent there, parked or not.
	TypeWall = "wall"
	// TypeOnCPU is the wall time of the samples on a CPU
	// (tachyon.Status.OnCPU: running, not in a system call), 0 for the
	// others: the default of a wall profile.
	TypeOnCPU = "on_cpu"
	// TypeCPU is a CPU profile's time (count × interval in nanoseconds),
	// as runtime/pprof names it and go build -pgo reads it.
	TypeCPU = "cpu"
)
