// Package auto profiles a program from the environment and ships its
// segments to a profile store, when imported for its side effects:
//
//	import _ "github.com/gotachyon/profiler/upload/auto"
//
// It imports package auto, whose init starts profiling from PROFILE_OUT.
// Its own init then, when PROFILE_UPLOAD is set and a profile runs, makes
// an upload.Uploader from upload.FromEnv (PROFILE_UPLOAD, PROFILE_SERVICE,
// PROFILE_LABELS) and registers its Segment method as the profile's
// segment hook (profiler.Profile.OnSegment), and its Capture method as
// the capture hook (profiler.Profile.OnCapture), so that captures
// (profiler.Capture, PROFILE_RECENT_SIGNAL) are pushed labelled
// capture=REASON. When the last segment has
// been flushed (at Stop, within the uploader's flush deadline), it logs
// the uploader's counters (pushed, retried, dropped, failed) and closes
// it.
//
// A problem with the upload configuration is logged and leaves profiling
// as it is, without uploads. Without PROFILE_SEGMENT, the hook is called
// once, at Stop, with the finished profile, which is then uploaded whole.
// The registration goes through an interface: a profile without
// OnSegment would be logged and not uploaded (profiler.Profile has it).
package auto
