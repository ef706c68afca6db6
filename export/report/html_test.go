package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/internal/synth"
	"github.com/gotachyon/profiler/internal/testutil"
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

// checkTree parses the preorder (frame, total, children) triples as the
// page does and checks the tree is whole and its totals consistent.
func checkTree(t *testing.T, d *document) {
	t.Helper()
	tr := d.Tree
	if len(tr) == 0 || len(tr)%3 != 0 || tr[0] != -1 || uint64(tr[1]) != d.Meta.Samples {
		t.Fatalf("tree starts %v, want root -1 with %d samples", tr[:min(3, len(tr))], d.Meta.Samples)
	}
	nframes := int64(len(d.Frames) / 3)
	type open struct{ total, left, kids int64 }
	stack := []open{}
	for i := 0; i < len(tr); i += 3 {
		fr, total, kids := tr[i], tr[i+1], tr[i+2]
		if i > 0 {
			if len(stack) == 0 {
				t.Fatalf("node %d outside the tree", i/3)
			}
			top := &stack[len(stack)-1]
			if fr < 0 || fr >= nframes || total <= 0 || total > top.left {
				t.Fatalf("node %d: frame %d (of %d), total %d, parent has %d left", i/3, fr, nframes, total, top.left)
			}
			top.left -= total
			top.kids--
		}
		stack = append(stack, open{total, total, kids})
		for len(stack) > 0 && stack[len(stack)-1].kids == 0 {
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Fatalf("tree ends with %d open nodes", len(stack))
	}
	for i, s := range d.Frames {
		if i%3 != 2 && (s < 0 || s >= int64(len(d.Strings))) {
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
		if want := cmpOr(maxNodes, DefaultMaxNodes); shown > want || shown != d.Meta.NodesShown {
			t.Errorf("MaxNodes %d: %d nodes shown (meta %d)", maxNodes, shown, d.Meta.NodesShown)
		}
		if rows := len(d.Functions) / 5; rows < 10 || rows > 20 {
			t.Errorf("%d function rows, want 10 to 20", rows)
		}
	}
}

func cmpOr(a, b int) int {
	if a > 0 {
		return a
	}
	return b
}

// million writes (once) a synthetic profile of 1 M samples over 500
// goroutines and 4000 frames, and returns its path.
var million = sync.OnceValues(func() (string, error) {
	dir, err := mkdirTemp()
	if err != nil {
		return "", err
	}
	rec := synth.Record(7, 500, 4000, 1_000_000)
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

// TestSizeMillion checks that the report of 1 M samples stays under 5 MB.
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
	if d.Meta.Samples != 1_000_000 {
		t.Fatalf("samples = %d", d.Meta.Samples)
	}
	checkTree(t, d)
	t.Logf("1 M samples: report %d bytes, %d of %d nodes, %d lanes", buf.Len(), d.Meta.NodesShown, d.Meta.Nodes, len(d.Lanes))
	if buf.Len() > 5<<20 {
		t.Errorf("report of 1 M samples is %d bytes, want under 5 MB", buf.Len())
	}
	if !strings.Contains(buf.String(), `id="flame"`) {
		t.Error("page lacks the flame graph")
	}
}
