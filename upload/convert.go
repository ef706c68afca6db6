package upload

import (
	"strconv"
	"strings"

	"github.com/google/pprof/profile"

	"github.com/gotachyon/profiler/export/pprof"
	"github.com/gotachyon/profiler/reader"
)

// convert reads the Tachyon file at path and returns its pprof profile
// without the goroutine label.
func convert(path string) (*profile.Profile, error) {
	f, err := reader.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One goroutine keeps its label, the others are folded as they are
	// read, so memory follows the distinct stacks, not the goroutines.
	p, err := pprof.Convert(f, pprof.Options{MaxGoroutines: 1})
	if err != nil {
		return nil, err
	}
	foldGoroutines(p)
	return p, nil
}

// foldGoroutines removes p's goroutine label and adds together the samples
// that then have the same stack and labels.
func foldGoroutines(p *profile.Profile) {
	index := map[string]*profile.Sample{}
	sets := map[labelSet]map[string][]string{}
	kept := p.Sample[:0]
	var key strings.Builder
	for _, s := range p.Sample {
		ls := labelSet{first(s.Label[pprof.LabelState]), first(s.Label[pprof.LabelWaitReason])}
		if sets[ls] == nil {
			sets[ls] = withoutGoroutine(s.Label)
		}
		s.Label = sets[ls]
		sampleKey(&key, s, ls)
		if into, ok := index[key.String()]; ok {
			for i, v := range s.Value {
				into.Value[i] += v
			}
			continue
		}
		index[key.String()] = s
		kept = append(kept, s)
	}
	clear(p.Sample[len(kept):])
	p.Sample = kept
}

// labelSet is a sample's labels once the goroutine's is gone: state and
// wait reason.
type labelSet struct{ state, reason string }

// first returns vs[0], or "".
func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// withoutGoroutine returns a copy of labels without the goroutine label
// (the exporter shares label maps between samples).
func withoutGoroutine(labels map[string][]string) map[string][]string {
	out := make(map[string][]string, len(labels))
	for k, v := range labels {
		if k != pprof.LabelGoroutine {
			out[k] = v
		}
	}
	return out
}

// sampleKey writes the identity of s, its locations and label set, into b.
func sampleKey(b *strings.Builder, s *profile.Sample, ls labelSet) {
	b.Reset()
	for _, l := range s.Location {
		b.WriteString(strconv.FormatUint(l.ID, 36))
		b.WriteByte(',')
	}
	b.WriteByte(0)
	b.WriteString(ls.state)
	b.WriteByte(0)
	b.WriteString(ls.reason)
}
