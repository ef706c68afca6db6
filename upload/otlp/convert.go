package otlp

import (
	"crypto/rand"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// ScopeName is the instrumentation scope of the exported profiles.
const ScopeName = "github.com/gotachyon/profiler"

// Resource attribute of the service name.
const AttrServiceName = "service.name"

// convert returns p as OTLP profiles of one resource with the attributes
// service.name and labels, one profile per sample type of p.
func convert(p *profile.Profile, service string, labels map[string]string) pprofile.Profiles {
	pd := pprofile.NewProfiles()
	rp := pd.ResourceProfiles().AppendEmpty()
	attrs := rp.Resource().Attributes()
	attrs.PutStr(AttrServiceName, service)
	for k, v := range labels {
		attrs.PutStr(k, v)
	}
	sp := rp.ScopeProfiles().AppendEmpty()
	sp.Scope().SetName(ScopeName)
	d := newDict(pd.Dictionary())
	stacks, sampleAttrs := d.samples(p)
	for i, st := range p.SampleType {
		op := sp.Profiles().AppendEmpty()
		d.header(op, p, st)
		for j, s := range p.Sample {
			if s.Value[i] == 0 {
				continue
			}
			os := op.Samples().AppendEmpty()
			os.SetStackIndex(stacks[j])
			os.AttributeIndices().FromRaw(sampleAttrs[j])
			os.Values().Append(s.Value[i])
		}
	}
	return pd
}

// header sets op's sample type st, period, time, duration and a random id.
func (d *dict) header(op pprofile.Profile, p *profile.Profile, st *profile.ValueType) {
	op.SampleType().SetTypeStrindex(d.str(st.Type))
	op.SampleType().SetUnitStrindex(d.str(st.Unit))
	if p.PeriodType != nil {
		op.PeriodType().SetTypeStrindex(d.str(p.PeriodType.Type))
		op.PeriodType().SetUnitStrindex(d.str(p.PeriodType.Unit))
	}
	op.SetPeriod(p.Period)
	op.SetTime(pcommon.Timestamp(p.TimeNanos))
	op.SetDurationNano(uint64(max(p.DurationNanos, 0)))
	var id pprofile.ProfileID
	rand.Read(id[:])
	op.SetProfileID(id)
}

// dict fills the request's dictionary, each entry once. Every table's
// entry 0 is the zero value, as OTLP asks.
type dict struct {
	d      pprofile.ProfilesDictionary
	strs   map[string]int32
	funcs  map[uint64]int32 // by pprof function id
	locs   map[uint64]int32 // by pprof location id
	stacks map[string]int32 // by location indices
	attrs  map[[2]string]int32
}

// newDict returns the dictionary d with its zero entries.
func newDict(d pprofile.ProfilesDictionary) *dict {
	d.StringTable().Append("")
	d.MappingTable().AppendEmpty()
	d.LocationTable().AppendEmpty()
	d.FunctionTable().AppendEmpty()
	d.LinkTable().AppendEmpty()
	d.AttributeTable().AppendEmpty()
	d.StackTable().AppendEmpty()
	return &dict{d: d, strs: map[string]int32{"": 0}, funcs: map[uint64]int32{}, locs: map[uint64]int32{},
		stacks: map[string]int32{}, attrs: map[[2]string]int32{}}
}

// samples adds p's mapping and its samples' stacks and labels to the
// dictionary, and returns each sample's stack and attribute indices.
func (d *dict) samples(p *profile.Profile) (stacks []int32, attrs [][]int32) {
	if len(p.Mapping) > 0 {
		d.d.MappingTable().At(0).CopyTo(d.d.MappingTable().AppendEmpty())
		d.d.MappingTable().At(1).SetFilenameStrindex(d.str(p.Mapping[0].File))
	}
	stacks = make([]int32, len(p.Sample))
	attrs = make([][]int32, len(p.Sample))
	for i, s := range p.Sample {
		stacks[i] = d.stack(s.Location)
		attrs[i] = d.labels(s.Label)
	}
	return stacks, attrs
}

// str returns s's index in the string table.
func (d *dict) str(s string) int32 {
	if i, ok := d.strs[s]; ok {
		return i
	}
	i := int32(d.d.StringTable().Len())
	d.d.StringTable().Append(s)
	d.strs[s] = i
	return i
}

// stack returns the index of the stack of locs, innermost first.
func (d *dict) stack(locs []*profile.Location) int32 {
	idx := make([]int32, len(locs))
	var key strings.Builder
	for j, l := range locs {
		idx[j] = d.location(l)
		key.WriteString(string(rune(idx[j])))
	}
	if i, ok := d.stacks[key.String()]; ok {
		return i
	}
	i := int32(d.d.StackTable().Len())
	d.d.StackTable().AppendEmpty().LocationIndices().FromRaw(idx)
	d.stacks[key.String()] = i
	return i
}

// location returns the index of l, with its lines, in the location table.
func (d *dict) location(l *profile.Location) int32 {
	if i, ok := d.locs[l.ID]; ok {
		return i
	}
	i := int32(d.d.LocationTable().Len())
	ol := d.d.LocationTable().AppendEmpty()
	if l.Mapping != nil {
		ol.SetMappingIndex(1)
	}
	ol.SetAddress(l.Address)
	for _, ln := range l.Line {
		line := ol.Lines().AppendEmpty()
		line.SetFunctionIndex(d.function(ln.Function))
		line.SetLine(ln.Line)
		line.SetColumn(ln.Column)
	}
	d.locs[l.ID] = i
	return i
}

// function returns the index of fn in the function table.
func (d *dict) function(fn *profile.Function) int32 {
	if i, ok := d.funcs[fn.ID]; ok {
		return i
	}
	i := int32(d.d.FunctionTable().Len())
	of := d.d.FunctionTable().AppendEmpty()
	of.SetNameStrindex(d.str(fn.Name))
	of.SetSystemNameStrindex(d.str(fn.SystemName))
	of.SetFilenameStrindex(d.str(fn.Filename))
	of.SetStartLine(fn.StartLine)
	d.funcs[fn.ID] = i
	return i
}

// labels returns the attribute indices of a sample's string labels (the
// first value of each).
func (d *dict) labels(labels map[string][]string) []int32 {
	idx := make([]int32, 0, len(labels))
	for k, vs := range labels {
		if len(vs) == 0 {
			continue
		}
		kv := [2]string{k, vs[0]}
		i, ok := d.attrs[kv]
		if !ok {
			i = int32(d.d.AttributeTable().Len())
			a := d.d.AttributeTable().AppendEmpty()
			a.SetKeyStrindex(d.str(k))
			a.Value().SetStr(vs[0])
			d.attrs[kv] = i
		}
		idx = append(idx, i)
	}
	slices.Sort(idx)
	return idx
}
