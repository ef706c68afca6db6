package groundtruth

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// loops names each role's own loop function, the frame that attributes a
// stack of an aggregate profile to the role.
var loops = map[string]string{
	Handler:     "(*Workload).handler",
	Duty:        "(*Workload).duty",
	Spinner:     "(*Workload).spinner",
	Sleeper:     "(*Workload).sleeper",
	ChanWaiter:  "(*Workload).chanWaiter",
	MutexWaiter: "(*Workload).mutexWaiter",
	SyscallRole: "(*Workload).syscallReader",
	Pool:        "(*Workload).poolWorker",
}

// RoleScore is one role's score in an aggregate profile: its goroutines
// pooled, as such a profile cannot tell them apart.
type RoleScore struct {
	Role       string
	Goroutines int     // the workload's goroutines of the role
	Weight     float64 // total weight of the role's stacks (fgprof: samples)
	// Funcs are the shares of the role's weight by phase function, against
	// the share of its goroutines' time in each. "(other)" is the weight of
	// stacks in no phase function.
	Funcs map[string]Pair
}

// MaxErr returns the role's largest function-share error, in percentage
// points.
func (s RoleScore) MaxErr() float64 {
	worst := 0.0
	for _, p := range s.Funcs {
		worst = max(worst, p.Err())
	}
	return worst
}

// AggregateReport scores a profile without goroutine ids, per role.
type AggregateReport struct {
	Window  time.Duration
	Roles   []RoleScore // in the order of the roles' constants
	Missing []string    // roles without a single stack
}

// ScoreAggregate scores p, a wall-clock pprof profile taken while w ran
// (fgprof's: stacks of every goroutine weighed by their first value), over
// the window p declares. A stack belongs to the role whose loop function it
// holds and to the innermost phase function in it, as in Score. Call it
// after w.Stop.
func ScoreAggregate(p *profile.Profile, w *Workload) (*AggregateReport, error) {
	if p.DurationNanos <= 0 {
		return nil, errors.New("groundtruth: the aggregate profile has no duration")
	}
	weights := aggregate(p)
	if len(weights) == 0 {
		return nil, errors.New("groundtruth: the aggregate profile has no stack of the workload")
	}
	r := &AggregateReport{Window: time.Duration(p.DurationNanos)}
	from, to := p.TimeNanos, p.TimeNanos+p.DurationNanos
	for _, role := range []string{Handler, Duty, Spinner, Sleeper, ChanWaiter, MutexWaiter, SyscallRole, Pool} {
		if weights[role] == nil {
			r.Missing = append(r.Missing, role)
			continue
		}
		r.Roles = append(r.Roles, scoreRole(role, weights[role], w, from, to))
	}
	return r, nil
}

// aggregate sums the weight of p's stacks by role and phase function.
func aggregate(p *profile.Profile) map[string]map[string]float64 {
	roleOf := map[string]string{}
	for role, fn := range loops {
		roleOf[pkgPrefix+fn] = role
	}
	weights := map[string]map[string]float64{}
	for _, s := range p.Sample {
		if len(s.Value) == 0 {
			continue
		}
		role, fn := classify(s, roleOf)
		if role == "" {
			continue
		}
		if weights[role] == nil {
			weights[role] = map[string]float64{}
		}
		weights[role][fn] += float64(s.Value[0])
	}
	return weights
}

// classify returns the role of s's stack, or "", and its innermost phase
// function, or other.
func classify(s *profile.Sample, roleOf map[string]string) (role, fn string) {
	fn = other
	for _, loc := range s.Location { // innermost first
		for _, ln := range loc.Line { // inlined functions first
			if ln.Function == nil {
				continue
			}
			name := ln.Function.Name
			if r, ok := roleOf[name]; ok && role == "" {
				role = r
			}
			if ph, ok := strings.CutPrefix(name, pkgPrefix); ok && fn == other && isPhase(ph) {
				fn = ph
			}
		}
	}
	return role, fn
}

// scoreRole compares a role's weights by function with the time its
// goroutines spent in each within [from, to] (ns).
func scoreRole(role string, weights map[string]float64, w *Workload, from, to int64) RoleScore {
	s := RoleScore{Role: role, Funcs: map[string]Pair{}}
	for _, d := range weights {
		s.Weight += d
	}
	for fn, d := range weights {
		s.Funcs[fn] = Pair{Got: d / s.Weight}
	}
	want, sum := map[string]float64{}, 0.0
	for _, l := range w.logs {
		if l.role != role {
			continue
		}
		s.Goroutines++
		tr := l.truth(from, to)
		for fn, d := range tr.wall {
			want[fn] += d
		}
		sum += tr.wallSum
	}
	for fn, d := range want {
		p := s.Funcs[fn]
		p.Want = d / max(sum, 1)
		s.Funcs[fn] = p
	}
	return s
}

// MaxFuncErr returns the largest function-share error of a role, in
// percentage points, as Report.MaxFuncErr does.
func (r *AggregateReport) MaxFuncErr(role string) float64 {
	for _, s := range r.Roles {
		if s.Role == role {
			return s.MaxErr()
		}
	}
	return 0
}

// String prints the report, one line per role: each function's share
// measured/lived, in percent.
func (r *AggregateReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "aggregate profile over %v\n", r.Window)
	for _, s := range r.Roles {
		fmt.Fprintf(&b, "  %-8s %3d goroutines %8.0f weight, max err %4.1f pp", s.Role, s.Goroutines, s.Weight, s.MaxErr())
		for _, fn := range sortedKeys(s.Funcs) {
			p := s.Funcs[fn]
			fmt.Fprintf(&b, " %s %.1f/%.1f", fn, 100*p.Got, 100*p.Want)
		}
		b.WriteByte('\n')
	}
	for _, m := range r.Missing {
		fmt.Fprintf(&b, "  missing: %s\n", m)
	}
	return b.String()
}
