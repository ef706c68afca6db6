package report

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/synth"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// millionLabelled writes (once) the samples of million with label frames:
// each goroutine's http.route is one of 40 and its http.method one of 2,
// and returns the file's path.
var millionLabelled = sync.OnceValues(func() (string, error) {
	dir, err := mkdirTemp()
	if err != nil {
		return "", err
	}
	rec := synth.Record(7, 500, 4000, millionSamples())
	path := filepath.Join(dir, "million-labelled.bin")
	w, err := writer.Create(path, writer.Options{StartTime: rec.Start, Interval: rec.Interval, Compression: tachyon.CompressionZstd})
	if err != nil {
		return "", err
	}
	for _, f := range rec.Frames {
		w.Frame(f)
	}
	labels := map[uint64][]uint32{}
	var stack []uint32
	for i := range rec.Len() {
		id := rec.IDs[i]
		if labels[id] == nil {
			for _, fr := range tachyon.LabelFrames([]tachyon.Label{{Key: "http.route", Value: fmt.Sprintf("/api/r%d", id%40)}, {Key: "http.method", Value: []string{"GET", "POST"}[id/40%2]}}) {
				labels[id] = append(labels[id], w.Frame(fr))
			}
		}
		stack = append(append(stack[:0], rec.Stack(i)...), labels[id]...)
		if err := w.WriteStack(id, 0, rec.TS[i], rec.Status[i], stack); err != nil {
			return "", err
		}
	}
	return path, w.Close()
})

// BenchmarkAggregateMillionLabelled aggregates millionLabelled: what
// labels cost against BenchmarkAggregateMillion.
func BenchmarkAggregateMillionLabelled(b *testing.B) {
	path, err := millionLabelled()
	if err != nil {
		b.Fatal(err)
	}
	benchAggregate(b, path)
}

// TestSizeMillionLabelled checks that the report of 1 M labelled samples
// (millionSamples), its cells split by 80 label sets, stays under 5 MB
// and that its cells still add up.
func TestSizeMillionLabelled(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 M samples")
	}
	path, err := millionLabelled()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, proftest.Open(t, path), Options{}); err != nil {
		t.Fatal(err)
	}
	d := extract(t, buf.Bytes())
	checkTree(t, d)
	if d.Labels == nil || len(d.Labels.Sets) != 81 || len(d.Labels.CellSets) != len(d.Cells)/2 {
		t.Fatalf("labels: %d sets, %d cell sets for %d cells", len(d.Labels.Sets), len(d.Labels.CellSets), len(d.Cells)/2)
	}
	var table uint64
	for i := 1; i < len(d.Labels.Table); i += 2 {
		table += d.Labels.Table[i]
	}
	if table != d.Meta.Samples {
		t.Errorf("label table holds %d samples, want %d", table, d.Meta.Samples)
	}
	t.Logf("%d labelled samples: report %d bytes, %d of %d nodes, %d cells, table %d cells", d.Meta.Samples, buf.Len(), d.Meta.NodesShown, d.Meta.Nodes, len(d.Cells)/2, len(d.Labels.Table)/2)
	if buf.Len() > 5<<20 {
		t.Errorf("report is %d bytes, want under 5 MB", buf.Len())
	}
}
