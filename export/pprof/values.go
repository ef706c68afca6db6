package pprof

import (
	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/tachyon"
)

// values decides a profile's sample types and each sample's values.
//
// A wall profile has three: samples (count), wall (nanoseconds, every
// sample) and on_cpu (nanoseconds, the samples on a CPU only: those of
// running goroutines, tachyon.State.OnCPU). Its default is on_cpu, so that go tool pprof -top's flat column
// sums time spent running Go code, not time parked in a channel receive;
// -sample_index=wall shows every goroutine's time. A goroutine in a system
// call is left out of on_cpu: it is in the kernel, most often blocked
// there (a read(2) waiting for data), and would lead the report as
// syscall.read; -sample_index=wall -tagfocus state=syscall shows it. A
// wall profile without a running sample defaults to wall, lest the
// default view be empty. A goroutine holding a P that the CPU profiler did
// not see run is runnable (under the synthetic frame "[no CPU sample]"),
// not on_cpu either.
//
// A CPU profile has two, as runtime/pprof writes them and go build -pgo
// reads them: samples (count) and cpu (nanoseconds), of the samples on a
// CPU only. A wall profile exported as CPU (Options.Type CPU) thus keeps
// its on-CPU samples and leaves the others out. The Go sampler writes CPU
// time spent in a system call as running; a file of a sampler that wrote it
// as syscall is a wall profile to tachyon.InferMode.
type values struct {
	cpu        bool  // a CPU profile
	anyRunning bool  // some sample is of a running goroutine
	period     int64 // nanoseconds per sample
}

// chooseValues returns the values for a profile of type t of a's samples,
// each of which stands for period nanoseconds.
func chooseValues(t Type, a *agg, period int64) values {
	cpu := t == CPU || (t == Auto && tachyon.InferMode(a.onCPU, a.n) == tachyon.ModeCPU)
	return values{cpu: cpu, anyRunning: a.onCPU > 0, period: period}
}

// sampleTypes returns the profile's sample types.
func (v values) sampleTypes() []*profile.ValueType {
	if v.cpu {
		return []*profile.ValueType{{Type: TypeSamples, Unit: "count"}, {Type: TypeCPU, Unit: "nanoseconds"}}
	}
	return []*profile.ValueType{{Type: TypeSamples, Unit: "count"}, {Type: TypeWall, Unit: "nanoseconds"},
		{Type: TypeOnCPU, Unit: "nanoseconds"}}
}

// defaultType returns the profile's default sample type.
func (v values) defaultType() string {
	switch {
	case v.cpu:
		return TypeCPU
	case v.anyRunning:
		return TypeOnCPU
	}
	return TypeWall
}

// periodType returns the type of the profile's period: a sample stands for
// one interval of wall time, or of CPU time in a CPU profile.
func (v values) periodType() string {
	if v.cpu {
		return TypeCPU
	}
	return TypeWall
}

// of returns the values of count samples in state st, or nil for samples
// the profile leaves out (those off a CPU, in a CPU profile).
func (v values) of(count int64, st tachyon.State) []int64 {
	ns := count * v.period
	switch {
	case v.cpu && !st.OnCPU():
		return nil
	case v.cpu:
		return []int64{count, ns}
	case st.OnCPU():
		return []int64{count, ns, ns}
	}
	return []int64{count, ns, 0}
}
