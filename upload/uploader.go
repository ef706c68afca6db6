package upload

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/internal/envnames"
	"github.com/gotachyon/profiler/internal/own"
)

// Stats are an Uploader's counters since New.
type Stats struct {
	Segments        int64 // segments given to Segment
	Captures        int64 // captures given to Capture
	Pushed          int64 // payloads the store accepted
	PushedBytes     int64
	Retried         int64 // failed push attempts that were retried
	Dropped         int64 // payloads evicted by newer ones past QueueBytes, or left at Close
	DroppedBytes    int64
	Failed          int64 // segments that could not be read, converted or encoded, and payloads the store refused
	Queued          int   // payloads held now, the one being pushed included
	QueuedBytes     int
	PeakQueuedBytes int // the most bytes ever held, at most Config.QueueBytes
}

// transport encodes profiles for one store and pushes them.
type transport interface {
	// Encode returns p's payload with the service name and labels.
	Encode(p *profile.Profile) ([]byte, error)
	// EncodeCapture is Encode for a capture taken for reason: a profile
	// type or resource of its own, labelled capture=reason.
	EncodeCapture(p *profile.Profile, reason string) ([]byte, error)
	// Send pushes one payload.
	Send(ctx context.Context, payload []byte) error
	// Retryable reports whether a push that failed with err may pass later.
	Retryable(err error) bool
	// Close releases the connections.
	Close() error
}

// Uploader converts segments and pushes them to one store, in order. Its
// methods are safe from any goroutine.
type Uploader struct {
	cfg       Config
	tr        transport
	q         *queue
	ctx       context.Context // cancelled by Close
	cancel    context.CancelFunc
	done      chan struct{} // closed when the pusher returns
	closeOnce sync.Once
	closeErr  error
	failing   bool // the last push failed; the pusher's only
}

// New returns an Uploader for cfg, whose pusher goroutine runs until
// Close. It fails, with an error wrapping ErrConfig, for a bad
// configuration; it does not contact the store. A cfg whose URL is
// PROFILE_UPLOAD's tells package auto that the variable is read, as
// FromEnv does.
func New(cfg Config) (*Uploader, error) {
	if cfg.URL != "" && cfg.URL == os.Getenv(EnvUpload) {
		envnames.UploadRead.Store(true) // see FromEnv
	}
	cfg, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	tr, err := newTransport(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	u := &Uploader{cfg: cfg, tr: tr, q: newQueue(cfg.QueueBytes), ctx: ctx, cancel: cancel, done: make(chan struct{})}
	own.Go(u.run)
	return u, nil
}

// Segment converts the finalized Tachyon file at path and queues its
// payload; it has the signature of the profiler's segment hook
// (profiler.Profile.OnSegment). It returns once the payload is queued,
// without waiting for the network, except when last is true: then it
// waits until the queue is empty or Config.FlushTimeout has passed. A
// segment that cannot be read or converted is logged and counted in
// Stats.Failed; an empty one is not pushed. The path "" (the profile's
// last segment was lost) queues nothing.
func (u *Uploader) Segment(path string, last bool) {
	if path != "" {
		u.q.count(func(s *Stats) { s.Segments++ })
		u.enqueue(path, u.tr.Encode)
	}
	if last {
		ctx, cancel := context.WithTimeout(u.ctx, u.cfg.FlushTimeout)
		defer cancel()
		if err := u.Flush(ctx); err != nil {
			s := u.Stats()
			u.cfg.Logf("profiler: upload: %d payloads (%d bytes) not pushed after %v: %v", s.Queued, s.QueuedBytes, u.cfg.FlushTimeout, err)
		}
	}
}

// Capture converts the capture at path (a finalized Tachyon file, taken
// for reason: see profiler.Capture) and queues its payload, labelled as a
// capture: for Pyroscope, the profile type wall_capture (process_cpu_capture
// for a CPU profile) with the series label capture=reason, so that it is
// found apart and never added to the segments' time, which holds it
// already; for OTLP, the resource attribute capture=reason. It has the
// signature of the profiler's capture hook (profiler.Profile.OnCapture),
// and returns once the payload is queued: the file may be deleted then.
func (u *Uploader) Capture(path, reason string) {
	u.q.count(func(s *Stats) { s.Captures++ })
	u.enqueue(path, func(p *profile.Profile) ([]byte, error) { return u.tr.EncodeCapture(p, reason) })
}

// enqueue converts the segment or capture at path, encodes it with
// encode, and queues it.
func (u *Uploader) enqueue(path string, encode func(*profile.Profile) ([]byte, error)) {
	if u.ctx.Err() != nil {
		u.q.count(func(s *Stats) { s.Dropped++ })
		return // closed
	}
	p, err := convert(path)
	if err == nil && len(p.Sample) == 0 {
		return
	}
	var data []byte
	if err == nil {
		data, err = encode(p)
	}
	if err != nil {
		u.q.count(func(s *Stats) { s.Failed++ })
		u.cfg.Logf("profiler: upload: segment %s: %v", path, err)
		return
	}
	ctx, cancel := context.WithCancel(u.ctx)
	if n := u.q.put(&item{data: data, ctx: ctx, cancel: cancel}); n > 0 {
		u.cfg.Logf("profiler: upload: queue full (%d bytes): dropped %d payloads, oldest first", u.cfg.QueueBytes, n)
	}
}

// Flush waits until every queued payload is pushed, refused or dropped, or
// until ctx is done, and then returns ctx's error.
func (u *Uploader) Flush(ctx context.Context) error {
	if err := u.q.flush(ctx); err != nil {
		return fmt.Errorf("upload: flush: %w", err)
	}
	return nil
}

// Stats returns the counters.
func (u *Uploader) Stats() Stats { return u.q.snapshot() }

// Close stops pushing, drops (and counts) what is still queued, and closes
// the connections. It does not flush: Segment with last=true, or Flush,
// does. Close is idempotent; Segment after Close counts its payload as
// dropped.
func (u *Uploader) Close() error {
	u.closeOnce.Do(func() {
		u.cancel()
		<-u.done
		u.q.close()
		u.closeErr = u.tr.Close()
	})
	return u.closeErr
}

// String describes the counters in a log line.
func (s Stats) String() string {
	return fmt.Sprintf("%d segments, %d captures, %d pushed (%d bytes), %d retries, %d dropped (%d bytes), %d failed",
		s.Segments, s.Captures, s.Pushed, s.PushedBytes, s.Retried, s.Dropped, s.DroppedBytes, s.Failed)
}
