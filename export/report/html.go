package report

import (
	"bufio"
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// page is the report's HTML, style and script; the data goes where
// dataMarker stands.
//
//go:embed report.html
var page string

const dataMarker = "/*TACHYON_DATA*/"

// Write aggregates f and writes the HTML report to w.
func Write(w io.Writer, f *reader.File, opt Options) error {
	p, err := Aggregate(f, opt)
	if err != nil {
		return err
	}
	return p.WriteHTML(w)
}

// WriteHTML writes the report page for p to w.
func (p *Profile) WriteHTML(w io.Writer) error {
	data, err := json.Marshal(p.document())
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	head, tail, ok := strings.Cut(page, dataMarker)
	if !ok {
		return fmt.Errorf("report: template lacks the data marker")
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(head)
	bw.Write(data) // json.Marshal escapes <, > and &, so no "</script>" can occur
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// document is the JSON the page reads. Strings are interned; frames are
// (func, file, line) triples of string indices and a line; the tree is
// (frame, total, child count) triples in preorder, the root's frame -1;
// functions are (func, file, line, self, total) rows.
type document struct {
	Meta      meta     `json:"meta"`
	Strings   []string `json:"strings"`
	Frames    []int64  `json:"frames"`
	Tree      []int64  `json:"tree"`
	Functions []int64  `json:"functions"`
	Lanes     []lane   `json:"lanes"`
}

type meta struct {
	Title        string                    `json:"title"`
	Samples      uint64                    `json:"samples"`
	Goroutines   int                       `json:"goroutines"`
	StartTime    uint64                    `json:"startTime"`
	Interval     uint64                    `json:"interval"`
	Duration     uint64                    `json:"duration"`
	Mode         string                    `json:"mode"`
	ModeInferred bool                      `json:"modeInferred"`
	Backend      string                    `json:"backend"`
	States       [tachyon.NumStates]uint64 `json:"states"`
	StateNames   []string                  `json:"stateNames"`
	Buckets      int                       `json:"buckets"`
	BucketUs     float64                   `json:"bucketUs"`
	Nodes        int                       `json:"nodes"`
	NodesShown   int                       `json:"nodesShown"`
	Functions    int                       `json:"functions"`
}

type lane struct {
	G        string                    `json:"g"` // a string: ids may exceed 2^53
	Samples  uint64                    `json:"n"`
	States   [tachyon.NumStates]uint64 `json:"states"`
	Top      string                    `json:"top"`
	Root     string                    `json:"root"`
	Timeline string                    `json:"t"`
}

type interner struct {
	ids  map[string]int64
	list []string
}

func (in *interner) id(s string) int64 {
	if id, ok := in.ids[s]; ok {
		return id
	}
	id := int64(len(in.list))
	in.ids[s] = id
	in.list = append(in.list, s)
	return id
}

func (p *Profile) document() *document {
	d := &document{Meta: meta{
		Title:      p.Options.Title,
		Samples:    p.Samples,
		Goroutines: p.Goroutines,
		StartTime:  p.StartTime,
		Interval:   p.Interval,
		Duration:   p.End - p.First,
		Mode:       p.Options.Mode,
		Backend:    p.Options.Backend,
		States:     p.States,
		Buckets:    p.Options.Buckets,
		BucketUs:   p.BucketWidth(),
		Nodes:      len(p.Nodes),
		Functions:  len(p.Functions),
	}}
	for s := range tachyon.State(tachyon.NumStates) {
		d.Meta.StateNames = append(d.Meta.StateNames, s.String())
	}
	if d.Meta.Mode == "" && p.Samples > 0 {
		onCPU := p.States[tachyon.Running] + p.States[tachyon.Syscall]
		d.Meta.Mode, d.Meta.ModeInferred = string(tachyon.InferMode(onCPU, p.Samples)), true
	}
	in := &interner{ids: make(map[string]int64)}
	frameIDs := make(map[int32]int64)
	frameID := func(fr int32) int64 {
		if id, ok := frameIDs[fr]; ok {
			return id
		}
		id := int64(len(frameIDs))
		frameIDs[fr] = id
		f := p.Frames[fr]
		d.Frames = append(d.Frames, in.id(f.Func), in.id(f.File), int64(f.Line))
		return id
	}
	d.Tree = p.prunedTree(frameID)
	d.Meta.NodesShown = len(d.Tree) / 3

	for _, f := range p.topFunctions() {
		d.Functions = append(d.Functions, in.id(f.Func), in.id(f.File), int64(f.Line), int64(f.Self), int64(f.Total))
	}
	for _, l := range p.Lanes {
		d.Lanes = append(d.Lanes, lane{
			G: goroutineName(l), Samples: l.Samples, States: l.States,
			Top: l.Top, Root: l.Root, Timeline: l.Timeline,
		})
	}
	d.Strings = in.list
	return d
}

// keepThreshold returns the smallest total a node needs to be embedded so
// that at most max nodes (the root included) are: a child's total never
// exceeds its parent's, so the kept nodes form a tree.
func (p *Profile) keepThreshold(max int) uint64 {
	if len(p.Nodes) <= max {
		return 0
	}
	totals := make([]uint64, 0, len(p.Nodes)-1)
	for _, n := range p.Nodes[1:] {
		totals = append(totals, n.Total)
	}
	slices.SortFunc(totals, func(a, b uint64) int { return cmp.Compare(b, a) })
	t := totals[max-2]
	if totals[max-1] == t { // ties would overflow: keep only larger ones
		t++
	}
	return t
}

// prunedTree returns the embedded tree: nodes whose total reaches the keep
// threshold, in preorder, children by total (largest first).
func (p *Profile) prunedTree(frameID func(int32) int64) []int64 {
	t := max(p.keepThreshold(p.Options.MaxNodes), 1)
	kids := make(map[int32][]int32)
	for i := 1; i < len(p.Nodes); i++ {
		if n := p.Nodes[i]; n.Total >= t {
			kids[n.Parent] = append(kids[n.Parent], int32(i))
		}
	}
	for _, ks := range kids {
		slices.SortFunc(ks, func(a, b int32) int {
			na, nb := p.Nodes[a], p.Nodes[b]
			if c := cmp.Compare(nb.Total, na.Total); c != 0 {
				return c
			}
			return strings.Compare(p.Frames[na.Frame].Func, p.Frames[nb.Frame].Func)
		})
	}
	var out []int64
	stk := []int32{0}
	for len(stk) > 0 {
		n := stk[len(stk)-1]
		stk = stk[:len(stk)-1]
		fr := int64(-1)
		if n != 0 {
			fr = frameID(p.Nodes[n].Frame)
		}
		ks := kids[n]
		out = append(out, fr, int64(p.Nodes[n].Total), int64(len(ks)))
		for i := len(ks) - 1; i >= 0; i-- {
			stk = append(stk, ks[i])
		}
	}
	return out
}

// topFunctions returns the table's rows: the MaxFunctions functions with the
// largest totals (p.Functions is sorted by total) and those with the largest
// self counts. It works on self counts and indexes, not copies of the rows:
// a profile can have a million functions.
func (p *Profile) topFunctions() []Function {
	k := p.Options.MaxFunctions
	if len(p.Functions) <= k {
		return p.Functions
	}
	selfs := make([]uint64, len(p.Functions))
	for i, f := range p.Functions {
		selfs[i] = f.Self
	}
	slices.SortFunc(selfs, func(a, b uint64) int { return cmp.Compare(b, a) })
	kth := selfs[k-1] // the k-th largest self count
	selfs = nil
	var rest []int32 // past the first k, by self count (largest first), then position
	for i := k; i < len(p.Functions); i++ {
		if s := p.Functions[i].Self; s != 0 && s >= kth {
			rest = append(rest, int32(i))
		}
	}
	slices.SortStableFunc(rest, func(a, b int32) int { return cmp.Compare(p.Functions[b].Self, p.Functions[a].Self) })
	rows := slices.Clone(p.Functions[:k])
	for _, i := range rest[:min(len(rest), k)] {
		rows = append(rows, p.Functions[i])
	}
	return rows
}

// goroutineName names a lane: its goroutine id, and the interpreter id when
// it is not 0 (profiles not written by the Go sampler).
func goroutineName(l Lane) string {
	g := strconv.FormatUint(l.Goroutine, 10)
	if l.Interpreter != 0 {
		g += "/" + strconv.FormatUint(uint64(l.Interpreter), 10)
	}
	return g
}
