package groundtruth

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
)

// Limits are the tolerances of Check.
type Limits struct {
	Func     float64 // percentage points, each phase function's share
	State    float64 // percentage points, each state's share (wall mode)
	Presence float64 // least share of ticks with a sample (wall mode)
	Reason   float64 // least share of waiting samples under the right frame
	// Woken is the most share of a goroutine's samples active in a
	// waiting phase's function (Goroutine.Woken), which count as waiting:
	// a profiler that showed waits as running would pass the states
	// without it.
	Woken float64
	// Rate (CPU mode) is the sampling rate asked for: a goroutine locked to
	// a thread must have Rate samples per CPU-second, within RateTol
	// (a fraction), or four standard deviations of its count where that
	// is wider.
	Rate    float64
	RateTol float64
	// MinCPU (CPU mode) is the least CPU time, in seconds, for a
	// goroutine's function shares to be judged.
	MinCPU float64
}

// DefaultLimits are the ground-truth issue's tolerances: shares within ±2
// points, states within ±3, present at 99% of the ticks.
var DefaultLimits = Limits{Func: 2, State: 3, Presence: 0.99, Reason: 0.99, Woken: 0.15, RateTol: 0.25, MinCPU: 0.5}

// Check returns every way the report falls outside l, or nil.
func (r *Report) Check(l Limits) error {
	var errs []error
	fail := func(g *Goroutine, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s g%d: %s", g.Role, g.ID, fmt.Sprintf(format, args...)))
	}
	for _, m := range r.Missing {
		errs = append(errs, fmt.Errorf("%s: no sample", m))
	}
	for i := range r.Goroutines {
		g := &r.Goroutines[i]
		if g.ReasonOK < l.Reason {
			fail(g, "%.1f%% of waiting samples under the right wait-reason frame", 100*g.ReasonOK)
		}
		if r.CPU {
			r.checkCPU(g, l, fail)
			continue
		}
		if l.Woken > 0 && g.Woken > l.Woken {
			fail(g, "%.1f%% of samples active in a waiting phase's function", 100*g.Woken)
		}
		r.checkRate(g, l, fail)
		if g.Presence < l.Presence || !g.AtEnds {
			fail(g, "present at %.2f%% of %d ticks (first and last: %v)", 100*g.Presence, r.Ticks, g.AtEnds)
		}
		for _, fn := range sortedKeys(g.Funcs) {
			if p := g.Funcs[fn]; p.Err() > l.Func {
				fail(g, "%s %.1f%%, lived %.1f%%", fn, 100*p.Got, 100*p.Want)
			}
		}
		for st, p := range g.States {
			if p.Err() > l.State {
				fail(g, "state %v %.1f%%, lived %.1f%%", st, 100*p.Got, 100*p.Want)
			}
		}
	}
	return errors.Join(errs...)
}

// checkCPU checks a goroutine of a CPU-mode profile: its samples are all on
// CPU, come at the rate asked for, and split as its CPU time did.
func (r *Report) checkCPU(g *Goroutine, l Limits, fail func(*Goroutine, string, ...any)) {
	if p := g.States[Waiting]; p.Got > l.State/100 {
		fail(g, "%.1f%% of CPU samples waiting", 100*p.Got)
	}
	if g.cpuSeconds < l.MinCPU {
		return
	}
	r.checkRate(g, l, fail)
	for _, fn := range sortedKeys(g.Funcs) {
		if p := g.Funcs[fn]; p.Err() > l.Func {
			fail(g, "%s %.1f%% of CPU samples, %.1f%% of CPU time", fn, 100*p.Got, 100*p.Want)
		}
	}
}

// checkRate checks that a goroutine locked to its thread has l.Rate samples
// on CPU per second of its thread's CPU time: in wall mode, that its CPU
// samples paid for as many of its running ticks as they stand for.
func (r *Report) checkRate(g *Goroutine, l Limits, fail func(*Goroutine, string, ...any)) {
	if l.Rate <= 0 || g.cpuSeconds < l.MinCPU {
		return
	}
	// A count of samples varies as a Poisson count does: a goroutine with
	// little CPU time is judged within four standard deviations of it
	// where that is wider than RateTol (a duty cycle calibrated beside
	// other processes spun 0.6 s in a minute: 66 samples expected).
	tol := max(l.RateTol, 4/math.Sqrt(l.Rate*g.cpuSeconds))
	if g.PerCPUSecond < l.Rate*(1-tol) || g.PerCPUSecond > l.Rate*(1+tol) {
		fail(g, "%.0f samples on CPU per CPU-second, want %.0f", g.PerCPUSecond, l.Rate)
	}
}

// MaxFuncErr returns the largest function-share error of a role's
// goroutines, in percentage points.
func (r *Report) MaxFuncErr(role string) float64 {
	worst := 0.0
	for _, g := range r.Goroutines {
		if g.Role == role {
			for _, p := range g.Funcs {
				worst = max(worst, p.Err())
			}
		}
	}
	return worst
}

// String prints the report, one line per goroutine but one for the pool.
func (r *Report) String() string {
	var b strings.Builder
	mode := "wall"
	if r.CPU {
		mode = "cpu"
	}
	fmt.Fprintf(&b, "%s mode, %d ticks over %v\n", mode, r.Ticks, r.Window)
	pool := 0
	for _, g := range r.Goroutines {
		if g.Role == Pool {
			if pool++; pool > 1 {
				continue
			}
		}
		fmt.Fprintf(&b, "  %-8s g%-5d %6d samples", g.Role, g.ID, g.Samples)
		if r.CPU {
			fmt.Fprintf(&b, " %5.0f/CPU-s agree %5.1f%%", g.PerCPUSecond, 100*g.Agreement)
		} else {
			fmt.Fprintf(&b, " present %6.2f%% agree %5.1f%%", 100*g.Presence, 100*g.Agreement)
			if g.cpuSeconds > 0 {
				fmt.Fprintf(&b, " %5.0f on CPU/CPU-s", g.PerCPUSecond)
			}
		}
		for _, fn := range sortedKeys(g.Funcs) {
			p := g.Funcs[fn]
			fmt.Fprintf(&b, " %s %.1f/%.1f", fn, 100*p.Got, 100*p.Want)
		}
		if !r.CPU {
			for _, st := range []State{Active, Waiting, Syscall} {
				if p, ok := g.States[st]; ok {
					fmt.Fprintf(&b, " %v %.1f/%.1f", st, 100*p.Got, 100*p.Want)
				}
			}
			fmt.Fprintf(&b, " (woken %.1f)", 100*g.Woken)
		}
		if g.CutShort > 0 {
			fmt.Fprintf(&b, " [cut short %.1f%%]", 100*g.CutShort)
		}
		if g.Guessed > 0 {
			fmt.Fprintf(&b, " [no CPU sample %.1f%%, agree %.1f%%]", 100*g.Guessed, 100*g.GuessAgreement)
		}
		if g.Other != "" {
			fmt.Fprintf(&b, " [other mostly %s]", g.Other)
		}
		b.WriteByte('\n')
	}
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "  missing: %s\n", m)
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
