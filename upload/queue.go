package upload

import (
	"context"
	"sync"
)

// item is one encoded payload waiting for its push.
type item struct {
	data    []byte
	ctx     context.Context // cancelled when the item is evicted or the uploader closes
	cancel  context.CancelFunc
	evicted bool // guarded by queue.mu
}

// queue holds payloads in order, at most bound bytes of them, and the
// counters of Stats. The head is the payload being pushed.
type queue struct {
	mu      sync.Mutex
	items   []*item
	bytes   int
	bound   int
	stats   Stats
	ready   chan struct{} // a token after each put, for the pusher
	changed chan struct{} // closed and replaced at each removal, for Flush
	closed  bool
}

func newQueue(bound int) *queue {
	return &queue{bound: bound, ready: make(chan struct{}, 1), changed: make(chan struct{})}
}

// put queues it, evicting the oldest payloads until it fits; it drops it
// at once if it alone exceeds the bound or the queue is closed. It returns
// how many payloads were evicted or dropped.
func (q *queue) put(it *item) (dropped int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := len(it.data)
	if q.closed || n > q.bound {
		q.countDrop(it)
		return 1
	}
	for q.bytes+n > q.bound {
		q.evictOldest()
		dropped++
	}
	q.items = append(q.items, it)
	q.bytes += n
	q.stats.Queued, q.stats.QueuedBytes = len(q.items), q.bytes
	q.stats.PeakQueuedBytes = max(q.stats.PeakQueuedBytes, q.bytes)
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return dropped
}

// evictOldest drops the head, cancelling its push if it is under way.
func (q *queue) evictOldest() {
	it := q.items[0]
	it.evicted = true
	it.cancel()
	q.removeAt(0)
	q.countDrop(it)
}

// countDrop counts it as dropped and cancels its context.
func (q *queue) countDrop(it *item) {
	it.cancel()
	q.stats.Dropped++
	q.stats.DroppedBytes += int64(len(it.data))
}

// removeAt removes the i-th item and wakes the flushers.
func (q *queue) removeAt(i int) {
	q.bytes -= len(q.items[i].data)
	q.items[i] = nil
	q.items = append(q.items[:i], q.items[i+1:]...)
	q.stats.Queued, q.stats.QueuedBytes = len(q.items), q.bytes
	close(q.changed)
	q.changed = make(chan struct{})
}

// head waits for the oldest payload and returns it, or nil once ctx is
// done.
func (q *queue) head(ctx context.Context) *item {
	for ctx.Err() == nil {
		q.mu.Lock()
		if len(q.items) > 0 {
			it := q.items[0]
			q.mu.Unlock()
			return it
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-ctx.Done():
		}
	}
	return nil
}

// done ends it's push: pushed, or refused (failed) when pushed is false.
// A payload evicted during a push that succeeded counts as pushed, not
// dropped; one evicted during a refused push stays dropped.
func (q *queue) done(it *item, pushed bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	it.cancel()
	if it.evicted {
		if pushed {
			q.stats.Dropped--
			q.stats.DroppedBytes -= int64(len(it.data))
			q.stats.Pushed++
			q.stats.PushedBytes += int64(len(it.data))
		}
		return
	}
	it.evicted = true // no longer queued
	q.removeAt(0)     // the pusher's item is still the head: evictions take the head only
	if pushed {
		q.stats.Pushed++
		q.stats.PushedBytes += int64(len(it.data))
	} else {
		q.stats.Failed++
	}
}

// flush waits until the queue is empty or ctx is done, and returns
// ctx.Err() in the latter case.
func (q *queue) flush(ctx context.Context) error {
	for {
		q.mu.Lock()
		n, changed := len(q.items), q.changed
		q.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// close drops every payload still queued and refuses further ones.
func (q *queue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	for len(q.items) > 0 {
		q.evictOldest()
	}
}

// snapshot returns the counters.
func (q *queue) snapshot() Stats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.stats
}

// count applies f to the counters under the lock.
func (q *queue) count(f func(*Stats)) {
	q.mu.Lock()
	defer q.mu.Unlock()
	f(&q.stats)
}
