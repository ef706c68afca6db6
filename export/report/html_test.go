package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/synth"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// extract returns the JSON document embedded in a report page.
func extract(t testing.TB, page []byte) *document {
	t.Helper()
	const open = `<script type="application/json" id="tachyon-data">`
	_, rest, ok := bytes.Cut(page, []byte(open))
	if !ok || bytes.Count(page, []byte(open)) != 1 {
		t.Fatal("page lacks exactly one data script")
	}
	data, _, ok := bytes.Cut(rest, []byte("</script>"))
	if !ok {
		t.Fatal("data script not closed")
	}
	var d document
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("embedded JSON: %v", err)
	}
	return &d
}

// checkTree parses the preorder (frame, children, cells) triples and the
// cells as the page does, and checks the tree is whole, its cells add up
// to the samples and each class to its states.
func checkTree(t *testing.T, d *document) {
	t.Helper()
	tr := d.Tree
	if len(tr) == 0 || len(tr)%3 != 0 || tr[0] != -1 {
		t.Fatalf("tree starts %v, want the root", tr[:min(3, len(tr))])
	}
	nframes := int64(len(d.Frames) / 4)
	stack := []int64{} // children left to read per open node
	cells := 0
	var classes [NumClasses]uint64
	for i := 0; i < len(tr); i += 3 {
		fr, kids, nc := tr[i], tr[i+1], tr[i+2]
		for len(stack) > 0 && stack[len(stack)-1] == 0 {
			stack = stack[:len(stack)-1]
		}
		if i > 0 {
			if len(stack) == 0 {
				t.Fatalf("node %d outside the tree", i/3)
			}
			stack[len(stack)-1]--
			if fr < -2 || fr == -1 || fr >= nframes {
				t.Fatalf("node %d: frame %d (of %d)", i/3, fr, nframes)
			}
		}
		stack = append(stack, kids)
		for k := range nc {
			key, n := d.Cells[2*(cells+int(k))], d.Cells[2*(cells+int(k))+1]
			if key >= uint64(NumClasses*d.Meta.Slices) || n == 0 {
				t.Fatalf("node %d: cell key %d of %d slices, %d samples", i/3, key, d.Meta.Slices, n)
			}
			classes[key/uint64(d.Meta.Slices)] += n
		}
		cells += int(nc)
	}
	for _, left := range stack {
		if left != 0 {
			t.Fatalf("tree ends with open nodes: %v", stack)
		}
	}
	if 2*cells != len(d.Cells) {
		t.Fatalf("tree has %d cells, the document %d", cells, len(d.Cells)/2)
	}
	var want [NumClasses]uint64
	for s, n := range d.Meta.States {
		want[ClassOf(tachyon.State(s))] += n
	}
	if classes != want {
		t.Errorf("cells per class %v, states say %v", classes, want)
	}
	for i, s := range d.Frames {
		if (i%4 == 0 || i%4 == 1) && (s < 0 || s >= int64(len(d.Strings))) {
			t.Fatalf("frame table entry %d: string %d of %d", i, s, len(d.Strings))
		}
	}
}

func TestWriteHTML(t *testing.T) {
	path := testutil.Vectors(t, "tachyon", "realistic_50k.bin")
	f := proftest.Open(t, path)
	for _, maxNodes := range []int{0, 2, 50} {
		var buf bytes.Buffer
		opt := Options{Title: `</script><b>x</b>`, MaxNodes: maxNodes, MaxFunctions: 10}
		if err := Write(&buf, f, opt); err != nil {
			t.Fatal(err)
		}
		page := buf.Bytes()
		if bytes.Contains(page, []byte("<b>x</b>")) {
			t.Error("title not escaped")
		}
		for _, s := range []string{"http://", "https://", " src=", "@import"} {
			if bytes.Contains(page, []byte(s)) {
				t.Errorf("page contains %q: it must need no network", s)
			}
		}
		d := extract(t, page)
		if d.Meta.Title != opt.Title || d.Meta.Samples != 50000 {
			t.Errorf("meta = %+v", d.Meta)
		}
		checkTree(t, d)
		shown := len(d.Tree) / 3
		if want := cmpOr(maxNodes, DefaultMaxNodes) + 1; shown > 2*want || shown != d.Meta.NodesShown { // + a cut-off node per kept one
			t.Errorf("MaxNodes %d: %d nodes shown (meta %d)", maxNodes, shown, d.Meta.NodesShown)
		}
		if d.Meta.MaxFunctions != 10 || len(d.Groups) == 0 || len(d.Lanes) == 0 {
			t.Errorf("meta %+v, %d groups, %d lanes", d.Meta, len(d.Groups), len(d.Lanes))
		}
	}
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// millionSamples is how many samples million and millionLabelled hold:
// a million, and a tenth of that under the race detector. One goroutine
// writes a report, and the race detector, which finds nothing in that a
// tenth of the samples would not show, makes it about eight times
// slower; the plain pass writes the million.
func millionSamples() int {
	if testutil.Race {
		return 100_000
	}
	return 1_000_000
}

// million writes (once) a synthetic profile of millionSamples samples
// over 500 goroutines and 4000 frames, and returns its path.
var million = sync.OnceValues(func() (string, error) {
	dir, err := mkdirTemp()
	if err != nil {
		return "", err
	}
	rec := synth.Record(7, 500, 4000, millionSamples())
	path := filepath.Join(dir, "million.bin")
	w, err := writer.Create(path, writer.Options{StartTime: rec.Start, Interval: rec.Interval, Compression: tachyon.CompressionZstd})
	if err != nil {
		return "", err
	}
	if err := rec.WriteTo(w); err != nil {
		return "", err
	}
	return path, w.Close()
})

// TestSizeMillion checks that the report of 1 M samples (millionSamples)
// stays under 5 MB.
func TestSizeMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 1 M samples")
	}
	path, err := million()
	if err != nil {
		t.Fatal(err)
	}
	f := proftest.Open(t, path)
	var buf bytes.Buffer
	if err := Write(&buf, f, Options{}); err != nil {
		t.Fatal(err)
	}
	d := extract(t, buf.Bytes())
	if d.Meta.Samples != uint64(millionSamples()) {
		t.Fatalf("samples = %d, want %d", d.Meta.Samples, millionSamples())
	}
	checkTree(t, d)
	t.Logf("%d samples: report %d bytes, %d of %d nodes, %d cells, %d groups, %d lanes", d.Meta.Samples, buf.Len(), d.Meta.NodesShown, d.Meta.Nodes, len(d.Cells)/2, len(d.Groups), len(d.Lanes))
	if buf.Len() > 5<<20 {
		t.Errorf("report of %d samples is %d bytes, want under 5 MB", d.Meta.Samples, buf.Len())
	}
	if !strings.Contains(buf.String(), `id="flame"`) {
		t.Error("page lacks the flame graph")
	}
}
