package speedscope

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// TestMaxDepth exports a stack deeper than speedscope opens (the reader
// accepts 65,536 frames; speedscope fails from about 3,500): it keeps its
// innermost MaxDepth-1 frames under ElidedFrame, with its weight.
func TestMaxDepth(t *testing.T) {
	for _, depth := range []int{MaxDepth, MaxDepth + 1, 5000} {
		data := hostile.HugeName(8, depth)
		f, err := reader.NewFile(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := Write(&b, f, Options{}); err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Shared struct {
				Frames []frame `json:"frames"`
			} `json:"shared"`
			Profiles []struct {
				Samples [][]int  `json:"samples"`
				Weights []uint64 `json:"weights"`
			} `json:"profiles"`
		}
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Profiles) != 1 || len(doc.Profiles[0].Samples) != 1 {
			t.Fatalf("depth %d: %d profiles, want one of one sample", depth, len(doc.Profiles))
		}
		st := doc.Profiles[0].Samples[0]
		if len(st) != min(depth, MaxDepth) {
			t.Errorf("depth %d: a stack of %d frames, want %d", depth, len(st), min(depth, MaxDepth))
		}
		elided := len(doc.Shared.Frames) == 2 && doc.Shared.Frames[1].Name == ElidedFrame
		if depth > MaxDepth {
			if !elided || st[0] != 1 {
				t.Errorf("depth %d: root frame %d of %v, want %q", depth, st[0], doc.Shared.Frames, ElidedFrame)
			}
			for _, i := range st[1:] {
				if i != 0 {
					t.Fatalf("depth %d: frame %d under the root, want the file's frame 0", depth, i)
				}
			}
		} else if elided || len(doc.Shared.Frames) != 1 {
			t.Errorf("depth %d: frames %v, want the file's one frame", depth, doc.Shared.Frames)
		}
	}
}
