package upload_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/upload"
)

// stores are the two receivers, with the URL of each and the series
// labels its store must see.
var stores = []struct {
	name   string
	new    func(*testing.T) *receiver
	url    func(addr string) string
	series func(service string) map[string]string
}{
	{"pyroscope", newPyroscope, func(a string) string { return "http://" + a },
		func(s string) map[string]string {
			return map[string]string{"__name__": "wall", "service_name": s, "env": "test"}
		}},
	{"otlp", newOTLP, func(a string) string { return "otlp://" + a },
		func(s string) map[string]string { return map[string]string{"service.name": s, "env": "test"} }},
}

// newUploader returns an uploader to r with fast retries, closed at the
// end of the test.
func newUploader(t *testing.T, url string, cfg upload.Config) *upload.Uploader {
	t.Helper()
	cfg.URL, cfg.Service, cfg.Labels = url, "checkout", map[string]string{"env": "test"}
	cfg.Backoff = upload.Backoff{Initial: 50 * time.Millisecond, Max: 400 * time.Millisecond}
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	u, err := upload.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

// checkReceived checks that r got one profile per segment, in order, with
// the segment's totals per state and wait reason and the series labels.
func checkReceived(t *testing.T, got []received, paths []string, series map[string]string) {
	t.Helper()
	if len(got) != len(paths) {
		t.Fatalf("received %d profiles, want %d", len(got), len(paths))
	}
	for i, rec := range got {
		if want := fileTotals(t, paths[i]); !maps.Equal(rec.totals, want) {
			t.Errorf("segment %d: totals\n got %v\nwant %v", i, rec.totals, want)
		}
		if !maps.Equal(rec.series, series) {
			t.Errorf("segment %d: series labels %v, want %v", i, rec.series, series)
		}
		for k := range rec.labelKeys {
			if k != "state" && k != "wait_reason" && k != tachyon.LabelCreatedBy {
				t.Errorf("segment %d: sample label %q, want only state, wait_reason and created_by", i, k)
			}
		}
		if !rec.labelKeys["state"] || !rec.labelKeys["wait_reason"] {
			t.Errorf("segment %d: sample labels %v, want state and wait_reason", i, rec.labelKeys)
		}
	}
}

// TestEverySegmentArrives pushes four segments, the last one flushed by
// Segment itself, and checks what the store got.
func TestEverySegmentArrives(t *testing.T) {
	paths := segments(t, t.TempDir(), 4)
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			for i, p := range paths {
				u.Segment(p, i == len(paths)-1)
			}
			checkReceived(t, r.received(), paths, st.series("checkout"))
			if s := u.Stats(); s.Pushed != 4 || s.Dropped != 0 || s.Failed != 0 || s.Queued != 0 {
				t.Errorf("stats: %+v", s)
			}
		})
	}
}

// TestStoreComesBack keeps the store down for 2 s while segments arrive:
// they wait in the queue, retried with backoff, and all arrive once it is
// back. A store down for 10 s is the same path with more retries, each
// waiting up to Backoff.Max.
func TestStoreComesBack(t *testing.T) {
	paths := segments(t, t.TempDir(), 4)
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			u := newUploader(t, st.url(r.addr), upload.Config{FlushTimeout: 10 * time.Second})
			for _, p := range paths[:3] {
				u.Segment(p, false)
			}
			time.Sleep(2 * time.Second)
			if got := r.received(); len(got) != 0 {
				t.Fatalf("received %d profiles while down", len(got))
			}
			r.up()
			start := time.Now()
			u.Segment(paths[3], true)
			checkReceived(t, r.received(), paths, st.series("checkout"))
			s := u.Stats()
			if s.Pushed != 4 || s.Dropped != 0 || s.Retried == 0 {
				t.Errorf("stats: %+v, want 4 pushed after retries, none dropped", s)
			}
			t.Logf("back after 2 s: flushed in %v; %v", time.Since(start).Round(time.Millisecond), s)
		})
	}
}

// TestStoreNeverComesBack pushes 40 segments of some hundred kilobytes
// each to a store that is down for good, through a queue of three
// payloads: the oldest are dropped and counted, the queue never holds more
// than its bound, the last segment's flush gives up at FlushTimeout, and
// the live heap grows by at most the bound (plus slack), not with the
// segments.
func TestStoreNeverComesBack(t *testing.T) {
	path := writeBigSegment(t, filepath.Join(t.TempDir(), "big.bin"))
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t) // never up
			size := payloadSize(t, st.url(r.addr), path)
			bound := int(3 * size)
			u := newUploader(t, st.url(r.addr), upload.Config{QueueBytes: bound, FlushTimeout: 300 * time.Millisecond,
				Logf: func(string, ...any) {}})
			heap0 := liveHeap()
			for range 39 {
				u.Segment(path, false)
			}
			start := time.Now()
			u.Segment(path, true)
			if d := time.Since(start); d > 3*time.Second {
				t.Errorf("last segment took %v, want about the 300 ms flush timeout", d)
			}
			grown := liveHeap() - heap0
			s := u.Stats()
			t.Logf("payload %d bytes, bound %d: %v; peak %d bytes; live heap grew %d bytes", size, bound, s, s.PeakQueuedBytes, grown)
			if s.PeakQueuedBytes > bound || s.QueuedBytes > bound {
				t.Errorf("queue held %d bytes (peak %d), bound %d", s.QueuedBytes, s.PeakQueuedBytes, bound)
			}
			if s.Dropped < 37 || s.Pushed != 0 || s.Retried == 0 {
				t.Errorf("stats %+v: want at least 37 dropped, none pushed, retries", s)
			}
			if grown > int64(bound)+2<<20 {
				t.Errorf("live heap grew %d bytes over 40 segments of %d bytes, bound %d", grown, size, bound)
			}
			u.Close()
			if s := u.Stats(); s.Dropped+s.Pushed+s.Failed != 40 || s.Queued != 0 {
				t.Errorf("after Close: %+v, want all 40 accounted for and none queued", s)
			}
		})
	}
}

// payloadSize returns the bytes of the payload of the segment at path:
// what a queue of one byte drops.
func payloadSize(t *testing.T, url, path string) int64 {
	t.Helper()
	u := newUploader(t, url, upload.Config{QueueBytes: 1, Logf: func(string, ...any) {}})
	u.Segment(path, false)
	u.Close()
	return u.Stats().DroppedBytes
}

// liveHeap returns the bytes of live heap after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestRefused checks that a payload the store refuses is dropped as failed
// at once, not retried.
func TestRefused(t *testing.T) {
	paths := segments(t, t.TempDir(), 2)
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.refuse = true
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			u.Segment(paths[1], true)
			if s := u.Stats(); s.Failed != 1 || s.Retried != 0 || s.Pushed != 0 {
				t.Errorf("stats %+v: want 1 failed, no retry", s)
			}
		})
	}
}

// TestFlushDeadline checks Flush's error when the store is down.
func TestFlushDeadline(t *testing.T) {
	paths := segments(t, t.TempDir(), 2)
	r := newPyroscope(t)
	u := newUploader(t, "http://"+r.addr, upload.Config{})
	u.Segment(paths[1], false)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := u.Flush(ctx); err == nil {
		t.Fatal("Flush to a store that is down returned nil")
	}
}

// TestSegmentLostLast: the profiler's last call when the last segment was
// lost (path "") queues nothing, fails nothing, and still flushes what
// is queued.
func TestSegmentLostLast(t *testing.T) {
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got.Add(1)
		w.Header().Set("Content-Type", "application/proto")
	}))
	defer srv.Close()
	u := newUploader(t, srv.URL, upload.Config{})
	u.Segment(segments(t, t.TempDir(), 1)[0], false)
	u.Segment("", true)
	if s := u.Stats(); s.Segments != 1 || s.Failed != 0 || s.Pushed != 1 || got.Load() != 1 {
		t.Errorf("stats %+v, %d pushes received: want the one segment pushed, and nothing of the last call", s, got.Load())
	}
}
