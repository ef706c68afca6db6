package sampler

import (
	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/tachyon"
)

// Creation sites (trace backend). The runtime records, with each
// goroutine's creation, the creator's stack at the go statement; its
// innermost frame the normalisation keeps (the runtime's own frames and
// compiler wrappers dropped) is the goroutine's creation site, the label
// tachyon.LabelCreatedBy on every sample of it. A goroutine that existed
// before the trace began has no creation in the trace and so no site
// (nothing rather than a guess), unless the goroutine leak profile names
// its creator (leakprof.go). The snapshot backend reads the site off
// runtime.Stack's "created by" lines (snapshot.go).
//
// A site costs an index per creation: the creator's stack id is resolved
// once a generation (byStack), each distinct frame's site string once
// (siteNo).

// siteCache is the trace backend's creation-site state.
type siteCache struct {
	// byStack is this generation's creator stacks resolved: the site's
	// number (names), noSite for a stack without one, 0 not yet.
	byStack []uint32
	// siteNo numbers each frame index met as a site, from one.
	siteNo map[uint32]uint32
	// names is the site of each number less one.
	names []string
}

// noSite marks a creator stack that has no frame to name.
const noSite = ^uint32(0)

// born sets up the labels of g, created by ev: its creation site and the
// pprof labels it inherits.
func (tb *traceBackend) born(g *tgor, ev *gotrace.Event) {
	b := tb.base(g)
	b.p = tb.inherited(g, ev.Creator)
	if !tb.em.cfg.NoCreationLabels {
		b.created = tb.site(ev.CreatorStack)
	}
	if b != tb.base(g) {
		tb.relabelTo(g, nil, b)
	}
}

// site returns the creation site of creator stack h, "" if it has none.
func (tb *traceBackend) site(h uint64) string {
	if h == 0 {
		return ""
	}
	sc := &tb.sites
	if h < uint64(len(sc.byStack)) {
		switch v := sc.byStack[h]; v {
		case 0:
		case noSite:
			return ""
		default:
			return sc.names[v-1]
		}
	}
	v := noSite
	frames := tb.rd.Stack(h)
	for k := range frames {
		f := &frames[k]
		e := tb.frame(f)
		if e.kind != keepFrame {
			continue
		}
		n, ok := sc.siteNo[e.idx]
		if !ok {
			if sc.siteNo == nil {
				sc.siteNo = make(map[uint32]uint32)
			}
			if len(sc.names) >= maxSites {
				clear(sc.siteNo)
				clear(sc.byStack)
				clear(sc.names)
				sc.names = sc.names[:0]
			}
			sc.names = append(sc.names, tachyon.CreationSite(f.Func, f.File, int(f.Line)))
			n = uint32(len(sc.names))
			sc.siteNo[e.idx] = n
		}
		v = n
		break
	}
	if h < maxStackIDs {
		for uint64(len(sc.byStack)) <= h {
			sc.byStack = append(sc.byStack, 0)
		}
		sc.byStack[h] = v
	}
	if v == noSite {
		return ""
	}
	return sc.names[v-1]
}

// maxSites bounds the distinct creation sites remembered (the table
// starts afresh when full: the sites in use stay valid in the label sets).
const maxSites = 1 << 14

// newGeneration forgets the ending generation's creator stacks.
func (sc *siteCache) newGeneration() {
	clear(sc.byStack)
	sc.byStack = sc.byStack[:0]
}
