package upload_test

import (
	"fmt"
	"net/http"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/hostilestore"
	"github.com/gotachyon/profiler/upload"
)

// pushMargin is what pushes to a hostile store may add to the heap beyond
// the queued payloads: a store's answer is read up to a small bound.
const pushMargin = 3 << 20

// TestEndlessStore pushes to stores whose answer never ends, or is far
// larger than any answer to a push: a Pyroscope store that answers 200
// with an endless protobuf body, one whose headers never end, one that
// answers 500 with an endless body, and an OTLP collector whose answer announces 3.5 MiB (under gRPC's
// default bound of 4 MiB) and streams without end. The pushes fail with
// the error logged and are retried, the heap grows by less than
// pushMargin over the queued payload, and Close returns promptly.
func TestEndlessStore(t *testing.T) {
	path := segments(t, t.TempDir(), 2)[1]
	for _, c := range []struct {
		name, scheme string
		serve        http.HandlerFunc
		want         string // in the logged error
	}{
		{"pyroscope-200", "http", hostilestore.Endless(http.StatusOK, "application/proto", nil), "resource_exhausted"},
		{"pyroscope-headers", "http", hostilestore.EndlessHeaders(), "headers exceeded 65536 bytes"},
		{"pyroscope-500", "http", hostilestore.Endless(http.StatusInternalServerError, "application/json", []byte(`{"code":"internal","message":"`)), "500"},
		{"otlp", "otlp", hostilestore.Endless(http.StatusOK, "application/grpc", hostilestore.GRPCPrefix(3<<20+1<<19)), "ResourceExhausted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			release := make(chan struct{})
			addr, stop := hostilestore.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-release:
					c.serve(w, r)
				case <-r.Context().Done():
				}
			}))
			var logs syncLog
			u := newUploader(t, c.scheme+"://"+addr, upload.Config{QueueBytes: 1 << 20, Timeout: 2 * time.Second, Logf: logs.printf})
			u.Segment(path, false) // converted and queued; the push waits for release
			// Frequent collections keep the heap near what is live, so that
			// the peak measures what a push holds, not its garbage.
			defer debug.SetGCPercent(debug.SetGCPercent(10))
			base := liveHeap()
			peak := watchHeap(base+pushMargin, stop)
			close(release)
			time.Sleep(time.Second)
			grown := peak() - base
			start := time.Now()
			u.Close()
			s := u.Stats()
			t.Logf("heap grew at most %d bytes; %v; log:\n%s", grown, s, logs.String())
			if grown > pushMargin {
				t.Errorf("heap grew by %d bytes during pushes to an endless store, want at most %d", grown, pushMargin)
			}
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("Close took %v", d)
			}
			if s.Retried == 0 || s.Pushed != 0 {
				t.Errorf("stats %+v: want failed pushes, retried", s)
			}
			if l := logs.String(); !strings.Contains(l, "push failed") || !strings.Contains(l, c.want) {
				t.Errorf("log %q: want the failed push with %q", l, c.want)
			}
		})
	}
}

// watchHeap samples the bytes of heap objects, live or not yet swept,
// every few milliseconds until peak is called, and returns peak, which
// stops the sampling and returns the most bytes seen. The first time the
// heap passes limit, it calls over, which stops what makes it grow.
func watchHeap(limit int64, over func()) (peak func() int64) {
	var max atomic.Int64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if v := int64(s[0].Value.Uint64()); v > max.Load() {
				max.Store(v)
				if v > limit {
					over()
				}
			}
			select {
			case <-tick.C:
			case <-quit:
				return
			}
		}
	}()
	return func() int64 {
		close(quit)
		<-done
		return max.Load()
	}
}

// syncLog collects log lines from any goroutine.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
