package report

import (
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// TestFirstKeyPrefersProgramLabels: the page shows a program's own label
// key first, though the creation site is on more samples; the creation
// site where it is the only key.
func TestFirstKeyPrefersProgramLabels(t *testing.T) {
	site := func(v string) tachyon.Label { return tachyon.Label{Key: tachyon.LabelCreatedBy, Value: v} }
	p := &Profile{LabelSets: []LabelSet{{}, {Labels: []tachyon.Label{site("a"), {Key: "route", Value: "/x"}}}, {Labels: []tachyon.Label{site("b")}}}}
	keys := p.LabelKeys()
	if k := keys[p.firstKey(keys, []uint64{0, 10, 100})]; k != "route" {
		t.Errorf("first key %q, want route", k)
	}
	p.LabelSets = p.LabelSets[:1:1]
	p.LabelSets = append(p.LabelSets, LabelSet{Labels: []tachyon.Label{site("b")}})
	keys = p.LabelKeys()
	if k := keys[p.firstKey(keys, []uint64{0, 100})]; k != tachyon.LabelCreatedBy {
		t.Errorf("first key %q, want %s", k, tachyon.LabelCreatedBy)
	}
}

// TestProfileLeaks checks that Aggregate gives a wall profile's leaks
// (internal/leaks' own tests check the analysis) and the document holds
// them, the listed groups first.
func TestProfileLeaks(t *testing.T) {
	p, err := Aggregate(proftest.Open(t, proftest.LeakFile(t)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := p.document(p.nodeOrder())
	if d.Leaks == nil || len(d.Leaks.Groups) != 2 || !d.Leaks.Groups[0].Listed || d.Leaks.Groups[1].Listed || d.Leaks.Flat != 1 || !d.Leaks.Marked {
		t.Fatalf("document's leaks: %+v", d.Leaks)
	}
	if g := d.Leaks.Groups[0]; d.Strings[g.Site] != proftest.LeakSite || d.Strings[g.Wait[0]] != "[chan send]" {
		t.Errorf("first group: site %q, wait %q", d.Strings[g.Site], d.Strings[g.Wait[0]])
	}
}
