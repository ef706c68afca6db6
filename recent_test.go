package profiler_test

import (
	"bytes"
	"errors"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/internal/workload/benchload"
	"github.com/gotachyon/profiler/reader"
)

// recentSeconds is the span TestRecentWhileProfiling asks for:
// RECENT_TEST_SECONDS, or 3 (the acceptance's 30 s runs with
// RECENT_TEST_SECONDS=30).
func recentSeconds(t *testing.T) time.Duration {
	if s := os.Getenv("RECENT_TEST_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("RECENT_TEST_SECONDS=%q", s)
		}
		return time.Duration(n) * time.Second
	}
	return 3 * time.Second
}

// samplesOf reads every sample of a Tachyon file, checking the whole
// file as tachyon verify does.
func samplesOf(t *testing.T, data []byte) (*reader.File, []reader.Sample) {
	t.Helper()
	f, err := reader.NewFileBytes(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Verify(); err != nil {
		t.Fatalf("the file does not verify: %v", err)
	}
	var out []reader.Sample
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := *it.Sample()
		s.Stack = append([]uint32(nil), s.Stack...)
		out = append(out, s)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return f, out
}

// TestRecentWhileProfiling takes the last seconds of a running profile
// of parked goroutines and a busy one, twice, and checks that each file
// verifies, states the span asked for, and has samples from its start
// to its end (within 100 ms), none outside; the profile goes on and
// finishes as usual.
func TestRecentWhileProfiling(t *testing.T) {
	d := recentSeconds(t)
	defer benchload.Park(100)()
	stop := make(chan struct{})
	defer close(stop)
	go spin(stop)
	path := filepath.Join(t.TempDir(), "p.bin")
	var logs testutil.Buffer
	p := profiler.Start(profiler.WithPath(path), profiler.WithRecent(d+20*time.Second, 0), profiler.WithLogger(log.New(&logs, "", log.Lmicroseconds)))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	defer func() {
		if t.Failed() {
			// What the sampler did meanwhile: its backends and switches,
			// its generations' parse, the window's chunks.
			p.Stop()
			t.Logf("the profile's log:\n%s", logs.String())
			t.Logf("the sampler: %+v", p.Stats())
		}
	}()
	time.Sleep(d + time.Second)
	for round := range 2 {
		var buf bytes.Buffer
		call := time.Now()
		sp, err := profiler.Recent(&buf, d)
		took := time.Since(call)
		if err != nil {
			t.Fatal(err)
		}
		from, to := call.Add(-d), call
		if sp.From.Sub(from).Abs() > time.Millisecond || sp.To.Sub(to).Abs() > time.Millisecond {
			t.Errorf("round %d: span %v..%v, want %v..%v", round, sp.From, sp.To, from, to)
		}
		f, samples := samplesOf(t, buf.Bytes())
		if f.Header.StartTime != uint64(sp.From.UnixMicro()) {
			t.Errorf("header start %d, span from %d", f.Header.StartTime, sp.From.UnixMicro())
		}
		lo, hi := uint64(sp.To.UnixMicro()), uint64(0)
		for _, s := range samples {
			lo, hi = min(lo, s.Timestamp), max(hi, s.Timestamp)
			if s.Timestamp < uint64(sp.From.UnixMicro()) || s.Timestamp >= uint64(sp.To.UnixMicro()) {
				t.Fatalf("round %d: a sample at %v, outside the span %v..%v", round, time.UnixMicro(int64(s.Timestamp)), sp.From, sp.To)
			}
		}
		first, last := time.UnixMicro(int64(lo)).Sub(sp.From), sp.To.Sub(time.UnixMicro(int64(hi)))
		t.Logf("round %d: %d samples of %d goroutines, first %v after the span's start, last %v before its end; Recent took %v", round, sp.Samples, sp.Goroutines, first, last, took)
		if first > 100*time.Millisecond || last > 100*time.Millisecond {
			t.Errorf("round %d: the samples cover %v..%v of a span %v..%v: not within 100 ms of its ends", round, time.UnixMicro(int64(lo)), time.UnixMicro(int64(hi)), sp.From, sp.To)
		}
		if t.Failed() {
			t.Logf("round %d: the window: %+v", round, p.RecentStats())
		}
		if sp.Goroutines < 100 || uint64(len(samples)) != sp.Samples {
			t.Errorf("round %d: %d samples (span says %d) of %d goroutines, want the 100 parked ones at least", round, len(samples), sp.Samples, sp.Goroutines)
		}
		time.Sleep(500 * time.Millisecond)
	}
	if st := p.RecentStats(); st.Early != 0 || st.Err != nil || st.Bytes > profiler.DefaultRecentBytes {
		t.Errorf("the window: %+v", st)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := profiler.Recent(&bytes.Buffer{}, d); !errors.Is(err, profiler.ErrNoRecent) {
		t.Errorf("Recent after Stop: %v, want ErrNoRecent", err)
	}
	if _, err := reader.Open(path); err != nil {
		t.Errorf("the profile's file: %v", err)
	}
}

// TestRecentNoFile keeps a profile in memory only, and takes it.
func TestRecentNoFile(t *testing.T) {
	p := profiler.Start(profiler.WithNoFile(), profiler.WithRecent(10*time.Second, 4<<20), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if p.Path() != "" {
		t.Errorf("path %q", p.Path())
	}
	// The window holds a generation's samples once it is parsed: on a
	// loaded machine that may come after the first call, so the call is
	// made again (up to three times, a second apart) while it is empty.
	time.Sleep(1500 * time.Millisecond)
	var buf bytes.Buffer
	var sp profiler.RecentSpan
	var samples int
	for try := 0; try < 3; try++ {
		if try > 0 {
			t.Logf("%d samples, span %v..%v; again", samples, sp.From, sp.To)
			time.Sleep(time.Second)
		}
		buf.Reset()
		var err error
		if sp, err = profiler.Recent(&buf, time.Second); err != nil {
			t.Fatal(err)
		}
		_, ss := samplesOf(t, buf.Bytes())
		if samples = len(ss); samples > 0 {
			break
		}
	}
	if samples == 0 || sp.To.Sub(sp.From) != time.Second {
		t.Errorf("%d samples, span %v..%v", samples, sp.From, sp.To)
	}
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
}

// TestRecentOptions refuses what WithNoFile and WithRecent cannot do.
func TestRecentOptions(t *testing.T) {
	for _, opts := range [][]profiler.Option{
		{profiler.WithNoFile()},
		{profiler.WithNoFile(), profiler.WithRecent(0, 0)},
		{profiler.WithNoFile(), profiler.WithRecent(time.Minute, 0), profiler.WithPath(filepath.Join(t.TempDir(), "p"))},
		{profiler.WithRecent(time.Millisecond, 0)},
		{profiler.WithRecent(time.Minute, -1)},
	} {
		p := profiler.Start(append(opts, profiler.WithLogger(log.New(io.Discard, "", 0)))...)
		if p.Err() == nil {
			p.Stop()
			t.Errorf("%d options: started", len(opts))
		}
	}
	// No window: Recent and Capture say how to have one.
	p := profiler.Start(profiler.WithPath(filepath.Join(t.TempDir(), "p")), profiler.WithQuiet(true))
	defer p.Stop()
	if _, err := profiler.Recent(&bytes.Buffer{}, time.Second); !errors.Is(err, profiler.ErrNoRecent) {
		t.Errorf("Recent without a window: %v", err)
	}
	if err := profiler.Capture("x"); !errors.Is(err, profiler.ErrNoRecent) {
		t.Errorf("Capture without a window: %v", err)
	}
}

// spin keeps a goroutine busy until stop.
func spin(stop chan struct{}) {
	x := 0
	for {
		select {
		case <-stop:
			return
		default:
		}
		for i := range 100000 {
			x += i
		}
	}
}
