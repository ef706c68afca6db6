// Package report turns a Tachyon profile into one self-contained HTML file
// built around goroutine states, goroutine groups and time: views of the
// samples on CPU (running), waiting for CPU (runnable), off CPU (blocked,
// by wait reason, and in system calls) and all; a timeline of goroutine
// groups ranked by the time they ran or waited for a CPU, whose goroutines
// show on demand; a flame graph drawn on a canvas, merged by function or
// split by line; tables of functions and wait reasons; and a header with
// the profile's facts and the view shown. A state's class is
// tachyon.State's: a system call is not on CPU (tachyon.State.OnCPU).
//
// The runtime's system goroutines (GC workers, the sweeper, the
// scavenger, the finalizer goroutine), whose samples the Go sampler roots
// at the synthetic frame tachyon.RuntimeRoot, are one group, RuntimeGroup,
// after the program's, and are left out of the call tree, so of the views,
// the flame graph and the tables; Options.Runtime shows them in full.
//
// Aggregate reads the samples a run at a time (reader.Samples.NextRun), so
// its cost follows the file's records, not its samples: a REPEAT run of
// a parked goroutine counts once, weighed by its count and spread over the
// time slices it spans by arithmetic. It keeps only aggregates: a call
// tree whose nodes hold their samples per class of state and per time
// slice (Cell), the functions' self and total counts, and per goroutine
// its state counts, its start function (its group: internal/gogroup's
// rule, which tachyon info shares), the stack it spent most samples in
// (its signature, of which the group shows the heaviest) and, for the
// goroutines and groups with a lane, its states over time. Write embeds
// those aggregates as JSON in a page whose HTML, style and script are
// part of this package (report.html, report.css, report.js), so the page
// needs no network, a view or a brushed time range is computed in the
// page from the cells, and the page's size does not grow with the
// samples: the call tree is cut to fit Options.MaxBytes.
//
// Goroutine states come from the samples' status bits (tachyon.Status.State);
// the synthetic innermost frame the Go sampler adds for a parked goroutine's
// wait reason, a function named like "[chan receive]" (tachyon.WaitReason),
// is a frame of its own, so the off-CPU view and its table break blocked
// time down by wait reason. The mode shown is tachyon.InferMode's unless
// Options.Mode says otherwise.
//
// Labels (tachyon.LabelOf: pprof labels, runtime/trace tasks and regions)
// ride as a sample's outermost frames; Aggregate strips them from every
// stack it aggregates, so the call tree, the groups and the runtime's
// detection are those of the same samples without labels, and keeps each
// sample's label set (Profile.LabelSets, at most MaxLabelSets, then one
// Other set) as a dimension of the tree's cells. Profile.ByLabel counts
// the samples the views hold by a key's value, class of state and wait
// reason. The page of a labelled profile adds a label picker (a key, then
// one or more values; all by default) that filters the views, the flame
// graph and the tables, and a table by label × state that follows the
// brushed range (labels.js, labels.css, which work through report.js's
// API); the page of a profile without labels carries neither.
//
// The Go sampler labels every goroutine's samples with where it was
// created (tachyon.LabelCreatedBy), so the label picker groups every view
// by spawn site; it shows a program's own key first, if it has one.
// A wall profile with goroutines blocked at one stack through whole slices
// of it has a leaks view (leaks.js, leaks.css): internal/leaks' groups, by
// creation site and wait, those that grow or that the runtime proved can
// never wake first, each with its count by slice as a sparkline, its growth
// a second and its goroutines marked unreachable; the groups that do not
// grow on demand. tachyon leaks prints the same analysis.
//
// The page keeps its view in the URL's fragment (urlstate.js): the view,
// frames by function or line, the brushed range, the search, the node
// zoomed into and the label key and values picked, as in
// #view=2&range=20-45&slices=75&q=chan&lk=http.route&lv=%2Fslow. A link to
// the page, a reload or a saved copy opens the same view; the zoomed node
// is named by a hash of its stack, so the same stack is found in another
// page of the profile, and a range of a page with other slices is scaled.
// What does not fit the page is ignored. The page spans the window's
// width at any size: its tables share it, side by side when there is
// room, and cut long names rather than widen the page.
package report
