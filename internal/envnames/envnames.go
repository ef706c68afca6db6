package envnames

// Prefix starts every name.
const Prefix = "PROFILE_"

// The names, and the package that reads each.
const (
	Out        = "PROFILE_OUT"        // profiler
	Mode       = "PROFILE_MODE"       // profiler
	Rate       = "PROFILE_RATE"       // profiler
	Segment    = "PROFILE_SEGMENT"    // profiler
	Keep       = "PROFILE_KEEP"       // profiler
	KeepBytes  = "PROFILE_KEEP_BYTES" // profiler
	Checkpoint = "PROFILE_CHECKPOINT" // profiler
	Signals    = "PROFILE_SIGNALS"    // auto
	Upload     = "PROFILE_UPLOAD"     // upload (through upload/auto)
	Service    = "PROFILE_SERVICE"    // upload
	Labels     = "PROFILE_LABELS"     // upload

	Recent        = "PROFILE_RECENT"         // profiler
	RecentBytes   = "PROFILE_RECENT_BYTES"   // profiler
	RecentSignal  = "PROFILE_RECENT_SIGNAL"  // profiler
	CaptureDir    = "PROFILE_CAPTURE_DIR"    // profiler
	CapturePeriod = "PROFILE_CAPTURE_PERIOD" // profiler
)

// All lists every name.
var All = []string{Out, Mode, Rate, Segment, Keep, KeepBytes, Checkpoint, Signals, Upload, Service, Labels,
	Recent, RecentBytes, RecentSignal, CaptureDir, CapturePeriod}

// Needs maps a name to the variable without which it has no effect.
// Recent stands for Out where it is set: a profile kept only in memory
// takes the variables a file does.
var Needs = map[string]string{
	Mode:        Out,
	Rate:        Out,
	Segment:     Out,
	Checkpoint:  Out,
	Signals:     Out,
	Upload:      Out,
	Keep:        Segment,
	KeepBytes:   Segment,
	Service:     Upload,
	Labels:      Upload,
	RecentBytes: Out,
}

// WindowOnly lists the names that act on the recent window only, which
// Recent keeps, or Segment with Out (a profile in segments keeps one by
// default), or RecentBytes with Out (a window of the default length).
var WindowOnly = []string{RecentBytes, RecentSignal, CaptureDir, CapturePeriod}

// FileOnly lists the names that act on the file or the segments only,
// which a profile kept in memory (Recent without Out) does not write.
var FileOnly = []string{Segment, Checkpoint, Keep, KeepBytes}

// Excludes maps a name to the variable with which it has no effect.
var Excludes = map[string]string{
	Checkpoint: Segment, // segments are finished files: no checkpoints
}
