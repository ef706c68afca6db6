package report

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/workload/demo"
)

// idleWorkers is the demo's idle pool in TestBrowserDemo.
const idleWorkers = 5000

// demoScript reads the default view, the widest frames and the group
// lanes; expands the idle group; brushes 30 % to 60 % of the timeline;
// then clicks demo.hotA in the flame graph.
const demoScript = `async (page) => {
	await page.waitForSelector('body[data-ready]');
	const state = () => page.evaluate(() => {
		const R = window.tachyonReport;
		return {
			view: R.view(), range: R.range(), total: R.total(),
			shown: +document.getElementById('flame-total').dataset.total,
			summary: document.getElementById('summary').innerText,
			frames: R.frames().map((f) => ({ name: f.name, depth: f.depth, w: f.w, self: f.self, total: f.total })),
		};
	});
	const r = { before: await state() };
	r.lanes = await page.evaluate(() => [...document.querySelectorAll('#lanes .lane.group')].map((e) => ({
		entry: e.dataset.entry, where: e.dataset.where, count: +e.dataset.count, label: e.querySelector('.lane-label .name').innerText })));
	// Expand the idle workers' group.
	const idle = r.lanes.findIndex((l) => l.entry.endsWith('demo.idleWorker'));
	await page.click('#lanes .lane.group[data-group="' + idle + '"] button.x');
	r.members = await page.evaluate((g) => document.querySelectorAll('#lanes .lane.member[data-group="' + g + '"]').length, idle);
	// Brush across the axis.
	const axis = await page.evaluate(() => { const b = document.querySelector('#lanes canvas.axis').getBoundingClientRect(); return { x: b.left, y: b.top + b.height / 2, w: b.width }; });
	await page.mouse.move(axis.x + 0.3 * axis.w, axis.y);
	await page.mouse.down();
	await page.mouse.move(axis.x + 0.45 * axis.w, axis.y, { steps: 4 });
	await page.mouse.move(axis.x + 0.6 * axis.w, axis.y, { steps: 4 });
	await page.mouse.up();
	r.after = await state();
	r.rangeText = await page.evaluate(() => document.getElementById('range-text').textContent);
	// Click demo.hotA.
	const hot = await page.evaluate(() => {
		const f = window.tachyonReport.frames().filter((f) => f.name.endsWith('demo.hotA')).sort((a, b) => b.w - a.w)[0];
		const box = document.getElementById('flame').getBoundingClientRect();
		return f ? { node: f.node, x: box.left + f.x + f.w / 2, y: box.top + f.depth * 18 + 9 } : null;
	});
	if (hot) {
		await page.evaluate(() => document.getElementById('flame').scrollIntoView());
		const box = await page.evaluate(() => { const b = document.getElementById('flame').getBoundingClientRect(); return { left: b.left, top: b.top }; });
		const f = await page.evaluate((n) => window.tachyonReport.frames().find((f) => f.node === n), hot.node);
		await page.mouse.click(box.left + f.x + f.w / 2, box.top + f.depth * 18 + 9);
		r.click = await page.evaluate(() => ({ ms: window.tachyonReport.lastClickMs, zoom: document.getElementById('flame').dataset.zoom, crumbs: document.getElementById('crumbs').textContent }));
	}
	await page.mouse.move(0, 0);
	await page.evaluate(() => window.scrollTo(0, 0));
	return r;
}`

type demoFrame struct {
	Name        string
	Depth       int
	W           float64
	Self, Total float64
}

type demoState struct {
	View    int
	Range   [2]int
	Total   float64
	Shown   float64
	Summary string
	Frames  []demoFrame
}

type demoResult struct {
	Before, After demoState
	Lanes         []struct {
		Entry, Where, Label string
		Count               int
	}
	Members   int
	RangeText string
	Click     *struct {
		Ms     float64
		Zoom   string
		Crumbs string
	}
}

// profileDemo runs the demo workload with an idle pool of goroutines,
// profiles it in wall mode for d once every idle goroutine is parked, and
// returns the file's path. The window leaves out the pool's start and
// exit: 5,000 goroutines starting and ending really run on a CPU, in
// demo.idleWorker, for longer than the steady state's hotA and hotB under
// the race detector on a busy machine; this test is about the steady state.
func profileDemo(t *testing.T, goroutines int, d time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() {
		_, err := demo.Run(ctx, demo.Config{Goroutines: goroutines})
		ran <- err
	}()
	defer func() {
		cancel()
		if err := <-ran; err != nil {
			t.Error(err)
		}
	}()
	waitParked(t, "demo.idleWorker", goroutines)
	path := filepath.Join(t.TempDir(), "demo.bin")
	p := profiler.Start(profiler.WithPath(path), profiler.WithQuiet(true))
	if err := p.Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	return path
}

// waitParked waits until the runtime's goroutine profile shows n
// goroutines stopped at one place in fn (runtime frames are left out of
// it): for demo.idleWorker, parked in its select.
func waitParked(t *testing.T, fn string, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	var buf bytes.Buffer
	for {
		buf.Reset()
		if err := pprof.Lookup("goroutine").WriteTo(&buf, 1); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(buf.String(), "\n")
		for i, line := range lines[:len(lines)-1] {
			var count int
			if _, err := fmt.Sscanf(line, "%d @", &count); err == nil && count >= n && strings.Contains(lines[i+1], fn+"+") {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines of %s not parked in a select after a minute", n, fn)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestBrowserDemo profiles the demo with 5,000 idle goroutines for two
// seconds of its steady state and checks its report in headless Chromium: the default view
// is on CPU and its widest user frames (the flame graph's plateaus: self
// width, outside the runtime and the standard library) are demo.hotA and
// demo.hotB; the CPU-bound goroutine's group is among the first 3 lanes;
// the idle workers are one group lane of 5,000; brushing a range sets the
// flame graph's total to the samples of that range; a click on a frame
// zooms into it, and the page times it (how fast is a goal of
// BenchmarkBrowserMillion's); nothing is logged as an error or fetched. The
// screenshot is kept (go test -artifacts) and its path logged.
func TestBrowserDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("profiles the demo and drives headless Chromium")
	}
	browsertest.Require(t)
	path := profileDemo(t, idleWorkers, 2*time.Second)
	f := proftest.Open(t, path)
	page := writePage(t, f, "demo, 5,000 idle goroutines")
	shot := filepath.Join(t.ArtifactDir(), "demo-report.png")
	raw, consoleErrors := browsertest.Run(t, browsertest.FileURL(page), demoScript, shot)
	t.Logf("screenshot: %s", shot)
	if len(consoleErrors) > 0 {
		t.Errorf("console errors or network requests: %q", consoleErrors)
	}
	var r demoResult
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	d := extract(t, html)
	t.Logf("%d samples of %d goroutines; page %d bytes; %s", d.Meta.Samples, d.Meta.Goroutines, len(html), r.Before.Summary)

	// The default view: on CPU, said in the header with its share.
	if r.Before.View != int(ViewOnCPU) || !strings.Contains(r.Before.Summary, "on CPU") || !strings.Contains(r.Before.Summary, "%") {
		t.Errorf("default view %d, header %q; want on CPU and its share", r.Before.View, r.Before.Summary)
	}
	if top := widestUserFrames(r.Before.Frames, 2); !slices.Equal(top, []string{"demo.hotA", "demo.hotB"}) && !slices.Equal(top, []string{"demo.hotB", "demo.hotA"}) {
		t.Errorf("widest user frames of the default view: %q, want demo.hotA and demo.hotB", top)
	}

	// Lanes: the spinner among the first 3, the idle pool one lane.
	spin, idle := -1, 0
	for i, l := range r.Lanes {
		if strings.HasSuffix(l.Entry, "demo.spin") && l.Count == 1 && spin < 0 {
			spin = i
		}
		if strings.HasSuffix(l.Entry, "demo.idleWorker") {
			idle++
			if l.Count != idleWorkers || l.Where != "[select]" || !strings.HasPrefix(l.Label, "5,000 × demo.idleWorker in [select]") {
				t.Errorf("idle workers' lane %+v, want 5,000 × demo.idleWorker in [select]", l)
			}
		}
	}
	if spin < 0 || spin >= 3 {
		t.Errorf("the CPU-bound goroutine's lane is %d, want one of the first 3: %+v", spin, r.Lanes[:min(5, len(r.Lanes))])
	}
	if idle != 1 || r.Members == 0 {
		t.Errorf("%d lanes of idle workers (want 1), %d goroutine lanes when expanded", idle, r.Members)
	}

	// Brushing: the flame graph's total is the view's samples in the range.
	lo, hi := r.After.Range[0], r.After.Range[1]
	want := rangeSamples(d, OnCPU, lo, hi)
	t.Logf("brushed slices [%d, %d) of %d (%s): flame graph total %v → %v, want %v", lo, hi, d.Meta.Slices, r.RangeText, r.Before.Total, r.After.Total, want)
	if lo <= 0 || hi >= d.Meta.Slices || r.After.Total != float64(want) || r.After.Shown != r.After.Total || r.After.Total == r.Before.Total {
		t.Errorf("after brushing: range [%d, %d), total %v (shown %v), want %d, not %v", lo, hi, r.After.Total, r.After.Shown, want, r.Before.Total)
	}

	// The click.
	if r.Click == nil {
		t.Fatal("no demo.hotA frame to click in the brushed range")
	}
	// Under a loaded runner the page's own time says more about the
	// runner than about the page: the time is logged, not judged.
	t.Logf("click on demo.hotA answered in %.2f ms", r.Click.Ms)
	if r.Click.Ms < 0 || !strings.Contains(r.Click.Crumbs, "demo.hotA") {
		t.Errorf("click: %+v, want a zoom into demo.hotA, timed by the page", *r.Click)
	}
}

// widestUserFrames returns the short names of the n user frames with the
// widest self width: in package main or a package whose path starts with
// a domain, so outside the runtime, the standard library and wait reasons.
func widestUserFrames(frames []demoFrame, n int) []string {
	var user []demoFrame
	for _, f := range frames {
		first, _, nested := strings.Cut(f.Name, "/")
		if f.Depth > 0 && (nested && strings.Contains(first, ".") || strings.HasPrefix(f.Name, "main.")) {
			user = append(user, f)
		}
	}
	slices.SortStableFunc(user, func(a, b demoFrame) int {
		switch {
		case a.Self > b.Self:
			return -1
		case a.Self < b.Self:
			return 1
		}
		return 0
	})
	var out []string
	for _, f := range user[:min(n, len(user))] {
		out = append(out, short(f.Name))
	}
	return out
}

// rangeSamples returns the samples of class c in slices [lo, hi) of the
// page's data.
func rangeSamples(d *document, c Class, lo, hi int) uint64 {
	var n uint64
	for i := 0; i < len(d.Cells); i += 2 {
		k := int(d.Cells[i])
		if k/d.Meta.Slices == int(c) && k%d.Meta.Slices >= lo && k%d.Meta.Slices < hi {
			n += d.Cells[i+1]
		}
	}
	return n
}
