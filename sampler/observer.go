package sampler

// An Observer is told of what the sampler sees beside the samples it
// writes (Config.Observer), from a sampler goroutine, one call at a time.
// It must not block: the sampling waits for it. Samples of the profiler's
// own goroutines, which are not written, are not told either.
//
// OnCPU is the only kind of event today. Events of other kinds are to
// come through optional interfaces an Observer may implement besides, so
// that an Observer keeps working, unchanged, as kinds are added.
type Observer interface {
	// OnCPU is told of every on-CPU sample written: goroutine g's at ts
	// (microseconds since the Unix epoch, the sample's timestamp), with
	// the PC of its innermost real frame, the innermost frame kept by the
	// normalisation described in the package doc, so that time in hidden
	// runtime functions counts at their caller's call site. That is every
	// sample in CPU mode, and every running goroutine's tick in wall mode.
	// The snapshot backend has no PCs and tells none.
	OnCPU(g, ts uint64, leafPC uintptr)
}

// Tee returns an Observer that tells each of obs, in order, what it is
// told; nil observers are left out, and Tee returns nil if none is left.
func Tee(obs ...Observer) Observer {
	var t tee
	for _, o := range obs {
		if o != nil {
			t = append(t, o)
		}
	}
	switch len(t) {
	case 0:
		return nil
	case 1:
		return t[0]
	}
	return t
}

// tee is the Observer of several. It implements every optional interface
// of an Observer, telling the observers that implement it.
type tee []Observer

// OnCPU tells each observer.
func (t tee) OnCPU(g, ts uint64, leafPC uintptr) {
	for _, o := range t {
		o.OnCPU(g, ts, leafPC)
	}
}
