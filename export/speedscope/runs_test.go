package speedscope

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

// TestRunsSameAsSamples checks the export, which reads runs, against the
// samples read one by one: with every goroutine on its own, each profile
// replays its goroutine's stacks in order; with the default Top, the
// weights per stack add up to the samples.
func TestRunsSameAsSamples(t *testing.T) {
	files := proftest.RunInputs(t)
	for name, f := range files {
		iv := max(f.Header.Interval, 1)
		seqs, totals := sampleStacks(t, f)
		for _, p := range writeAndParse(t, f, Options{Top: -1}).Profiles {
			id, _ := strconv.ParseUint(strings.TrimPrefix(p.Name, "goroutine "), 10, 64)
			var seq []stackRun
			for i, s := range p.Samples {
				seq = appendRun(seq, key(nil, s), p.Weights[i]/iv)
			}
			if !slices.Equal(seq, seqs[id]) {
				t.Errorf("%s: %s replays\n%v\nwant\n%v", name, p.Name, seq, seqs[id])
			}
		}
		byStack := map[string]uint64{}
		for _, p := range writeAndParse(t, f, Options{}).Profiles {
			for i, s := range p.Samples {
				byStack[key(nil, s)] += p.Weights[i] / iv
			}
		}
		if !maps.Equal(byStack, totals) {
			t.Errorf("%s: samples per stack %v, want %v", name, byStack, totals)
		}
	}
}

// stackRun is n consecutive samples of one stack.
type stackRun struct {
	stack string
	n     uint64
}

// appendRun appends n samples of stack to seq, extending its last run.
func appendRun(seq []stackRun, stack string, n uint64) []stackRun {
	if k := len(seq); k > 0 && seq[k-1].stack == stack {
		seq[k-1].n += n
		return seq
	}
	return append(seq, stackRun{stack, n})
}

// key is a stack of frame indices, outermost first, as text.
func key[T int | uint32](b []byte, stack []T) string {
	for _, fr := range stack {
		b = strconv.AppendUint(b, uint64(fr), 10)
		b = append(b, ',')
	}
	return string(b)
}

// sampleStacks returns each goroutine's stacks in order and the samples
// per stack, read sample by sample.
func sampleStacks(t *testing.T, f *reader.File) (map[uint64][]stackRun, map[string]uint64) {
	seqs, totals := map[uint64][]stackRun{}, map[string]uint64{}
	it := f.Samples()
	defer it.Close()
	var rev []uint32
	var buf [256]byte
	for it.Next() {
		s := it.Sample()
		rev = append(rev[:0], s.Stack...)
		slices.Reverse(rev)
		k := key(buf[:0], rev)
		seqs[s.ThreadID] = appendRun(seqs[s.ThreadID], k, 1)
		totals[k]++
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return seqs, totals
}

func writeAndParse(t *testing.T, f *reader.File, o Options) file {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, f, o); err != nil {
		t.Fatal(err)
	}
	var out file
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}
