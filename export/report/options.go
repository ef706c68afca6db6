package report

import "math"

// Defaults of Options.
const (
	DefaultGroups       = 300
	DefaultGoroutines   = 400
	DefaultBuckets      = 600
	DefaultSlices       = 100
	DefaultMaxNodes     = 50_000
	DefaultMaxFunctions = 1000
	DefaultMaxBytes     = 4_500_000
)

// Upper bounds of the options that size the page, so that no choice of
// options makes a page past 5 MB of lanes alone.
const (
	maxGroups     = 1000
	maxGoroutines = 2000
	maxBuckets    = 1200
	maxSlices     = 400
)

// Options tune the report. The zero value is usable: every zero field
// takes its default.
type Options struct {
	Title   string // page title; default "Tachyon profile"
	Mode    string // sampling mode shown ("wall", "cpu"); default tachyon.InferMode's
	Backend string // sampler backend, shown when known

	// Runtime shows the runtime's system goroutines (GC workers, the
	// sweeper, the scavenger, the finalizer goroutine: those whose samples
	// the Go sampler roots at tachyon.RuntimeRoot) in full: in the call
	// tree, the views and the tables, grouped and ranked as the program's
	// own. By default they are one group, RuntimeGroup, after the
	// program's, and left out of the call tree, so of the flame graph,
	// the views' samples and the tables.
	Runtime bool

	// Groups is the most goroutine groups with a lane of their own (the
	// busiest; see Group), default DefaultGroups, at most 1000; the
	// runtime group comes after them.
	Groups int
	// Goroutines is the most goroutine lanes, shown inside their group's on
	// demand: the busiest goroutine of each group first, then the second
	// of each, and so on. Default DefaultGoroutines, at most 2000.
	Goroutines int
	// Buckets is the timeline's columns, default DefaultBuckets, at most
	// 1200.
	Buckets int
	// Slices is the most time slices the flame graph and the tables can be
	// filtered to (by brushing the timeline): the profile's span is cut in
	// between Slices/2 and Slices equal slices. Default DefaultSlices, at
	// most 400.
	Slices int
	// MaxNodes is the most call-tree nodes (the heaviest) embedded for the
	// flame graph; default DefaultMaxNodes. Fewer are kept when the page
	// would pass MaxBytes.
	MaxNodes int
	// MaxFunctions is the most rows the page's functions table shows;
	// default DefaultMaxFunctions.
	MaxFunctions int
	// MaxBytes bounds the page's size: the call tree is cut until the page
	// fits. Default DefaultMaxBytes, which keeps every page under 5 MB.
	MaxBytes int
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "Tachyon profile"
	}
	def := func(v *int, d, hi int) {
		if *v <= 0 {
			*v = d
		}
		*v = min(*v, hi)
	}
	def(&o.Groups, DefaultGroups, maxGroups)
	def(&o.Goroutines, DefaultGoroutines, maxGoroutines)
	def(&o.Buckets, DefaultBuckets, maxBuckets)
	def(&o.Slices, DefaultSlices, maxSlices)
	o.Slices = max(o.Slices, 2)
	def(&o.MaxNodes, DefaultMaxNodes, 1<<30)
	def(&o.MaxFunctions, DefaultMaxFunctions, 1<<30)
	def(&o.MaxBytes, DefaultMaxBytes, min(1<<40, math.MaxInt)) // 1 TiB, or int's bound on 32 bits
	return o
}
