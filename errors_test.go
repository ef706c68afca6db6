package profiler_test

import (
	"bytes"
	"errors"
	"io"
	"log"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/tachyon"
)

// fullDisk is an output that takes limit bytes and then fails every write,
// as a full disk does, noting when it first failed.
type fullDisk struct {
	mu            sync.Mutex
	limit, n, off int64
	failedAt      time.Time
}

var errFull = errors.New("disk full")

func (d *fullDisk) Write(p []byte) (int, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.off+int64(len(p)) > d.limit {
		if d.failedAt.IsZero() {
			d.failedAt = time.Now()
		}
		return 0, errFull
	}
	d.off += int64(len(p))
	d.n = max(d.n, d.off)
	return len(p), nil
}

func (d *fullDisk) Seek(off int64, whence int) (int64, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch whence {
	case io.SeekCurrent:
		off += d.off
	case io.SeekEnd:
		off += d.n
	}
	d.off = off
	return off, nil
}

// failed reports whether a write has failed.
func (d *fullDisk) failed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return !d.failedAt.IsZero()
}

// TestWriteErrorSaidOnce fills the disk while sampling: Stop returns the
// error once, Stop's log line says it once (and a line before, once, that
// the sampling stopped), and the sampler stopped writing on it.
func TestWriteErrorSaidOnce(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	for range 2000 {
		go func() { <-stop }()
	}
	var logged bytes.Buffer
	disk := &fullDisk{limit: 4096}
	p := profiler.Start(profiler.WithOutput(disk), profiler.WithRate(1000),
		profiler.WithCompression(tachyon.CompressionNone), profiler.WithLogger(log.New(&logged, "", 0)), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	// A generation or more, until the writer has flushed into the full
	// disk (the first generation's samples are written once it is parsed,
	// later on a loaded machine).
	time.Sleep(1500 * time.Millisecond)
	for deadline := time.Now().Add(20 * time.Second); !disk.failed() && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	err := p.Stop()
	if !errors.Is(err, errFull) {
		t.Fatalf("Stop: %v, want the disk's error", err)
	}
	if n := strings.Count(err.Error(), "disk full"); n != 1 {
		t.Errorf("Stop's error says it %d times: %v", n, err)
	}
	// Stop's line says it once; the line that said the sampling stopped,
	// if the sampler met the error before Stop, is the other.
	atOnce, atStop := 0, 0
	for _, l := range strings.Split(logged.String(), "\n") {
		switch {
		case !strings.Contains(l, "disk full"):
		case strings.HasPrefix(l, "profiler: sampling stopped: "):
			atOnce++
		default:
			atStop++
		}
	}
	if atOnce > 1 || atStop != 1 {
		t.Errorf("the log says it %d times as it happens and %d at Stop:\n%s", atOnce, atStop, logged.String())
	}
	if st := p.Stats(); st.Dropped == 0 || !errors.Is(st.Err, errFull) {
		t.Errorf("the sampler went on or did not see the error: %+v", st)
	}
	t.Log(err)
}
