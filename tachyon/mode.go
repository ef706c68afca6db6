package tachyon

// Mode is how a profile was sampled, as its samples show it: the format
// does not record it, so every view infers it the same way (InferMode).
type Mode string

// The two modes.
const (
	// ModeWall: some samples are off a CPU (a wall-clock profile, which
	// samples every goroutine whatever its state).
	ModeWall Mode = "wall"
	// ModeCPU: every sample is on a CPU (Status.OnCPU), as a CPU profile's.
	ModeCPU Mode = "cpu"
)

// InferMode returns ModeCPU when all of a profile's total samples, onCPU
// of which have Status.OnCPU, are on a CPU, and ModeWall otherwise,
// including for a profile without samples.
func InferMode(onCPU, total uint64) Mode {
	if total > 0 && onCPU == total {
		return ModeCPU
	}
	return ModeWall
}
