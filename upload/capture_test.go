package upload_test

import (
	"maps"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/upload"
	"github.com/gotachyon/profiler/upload/otlp"
	"github.com/gotachyon/profiler/upload/pyroscope"
)

// TestCaptureLabels pushes a capture: Pyroscope gets it as a profile type
// of its own (wall_capture) with the series label capture=REASON beside
// the service's; OTLP with the resource attribute capture=REASON; the
// totals are the file's, as a segment's.
func TestCaptureLabels(t *testing.T) {
	path := writeLabelledSegment(t, filepath.Join(t.TempDir(), "capture.tachyon"))
	for i, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			r := st.new(t)
			r.up()
			u := newUploader(t, st.url(r.addr), upload.Config{})
			u.Capture(path, "slow")
			u.Segment(path, true) // flushes
			got := r.received()
			if len(got) != 2 {
				t.Fatalf("received %d profiles, want 2", len(got))
			}
			want := fileTotalsNamed(t, path, labelStores[i].key)
			capture, segment := got[0], got[1]
			if !maps.Equal(capture.totals, want) {
				t.Errorf("the capture's totals\n got %v\nwant %v", capture.totals, want)
			}
			if st.name == "pyroscope" {
				if capture.series[pyroscope.LabelName] != "wall_capture" || capture.series[pyroscope.LabelCapture] != "slow" {
					t.Errorf("the capture's series labels %v", capture.series)
				}
				if segment.series[pyroscope.LabelName] != pyroscope.NameWall || segment.series[pyroscope.LabelCapture] != "" {
					t.Errorf("the segment's series labels %v", segment.series)
				}
			} else if capture.series[otlp.AttrCapture] != "slow" || segment.series[otlp.AttrCapture] != "" {
				t.Errorf("resource attributes: the capture's %v, the segment's %v", capture.series, segment.series)
			}
			if s := u.Stats(); s.Captures != 1 || s.Segments != 1 || s.Pushed != 2 {
				t.Errorf("stats %+v", s)
			}
		})
	}
}
