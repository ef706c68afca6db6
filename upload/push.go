package upload

import (
	"context"
	"math/rand/v2"
	"time"
)

// run pushes the queue's head until Close.
func (u *Uploader) run() {
	defer close(u.done)
	for {
		it := u.q.head(u.ctx)
		if it == nil {
			return
		}
		u.push(it)
	}
}

// push pushes it, retrying with backoff while the failures may pass and it
// stays queued.
func (u *Uploader) push(it *item) {
	wait := u.cfg.Backoff.Initial
	for failures := 0; ; failures++ {
		err := u.attempt(it)
		switch {
		case err == nil:
			u.recovered()
			u.q.done(it, true)
			return
		case it.ctx.Err() != nil:
			return // evicted or closed: counted by the queue
		case !u.tr.Retryable(err):
			u.cfg.Logf("profiler: upload: the store refused a payload of %d bytes: %v", len(it.data), err)
			u.q.done(it, false)
			return
		}
		if !u.failing {
			u.failing = true
			u.cfg.Logf("profiler: upload: push failed, retrying with backoff: %v", err)
		}
		u.q.count(func(s *Stats) { s.Retried++ })
		if !sleep(it.ctx, jitter(wait)) {
			return
		}
		wait = min(2*wait, u.cfg.Backoff.Max)
	}
}

// attempt pushes it once, within Config.Timeout.
func (u *Uploader) attempt(it *item) error {
	ctx, cancel := context.WithTimeout(it.ctx, u.cfg.Timeout)
	defer cancel()
	return u.tr.Send(ctx, it.data)
}

// jitter returns a random duration between d/2 and d.
func jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + rand.N(half+1)
}

// sleep waits d and reports true, or reports false once ctx is done.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// recovered logs the end of a streak of failed pushes.
func (u *Uploader) recovered() {
	if u.failing {
		u.failing = false
		u.cfg.Logf("profiler: upload: pushing again")
	}
}
