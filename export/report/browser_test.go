package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// browserScript drives the report: it waits for the page, reads what
// rendered, clicks the widest frame below the root on the canvas to zoom
// into it, hovers it, resets, searches for it, and sorts the functions
// table by total and by name.
const browserScript = `async (page) => {
	await page.waitForSelector('body[data-ready]');
	const api = 'window.tachyonReport';
	const r = await page.evaluate(() => {
		const R = window.tachyonReport;
		return {
			frames: R.frames().length,
			labelled: R.frames().filter((f) => f.w > 40).length,
			groups: document.querySelectorAll('#lanes .lane.group').length,
			painted: [...document.querySelectorAll('#lanes .lane.group canvas.strip')].filter((c) => {
				const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
				for (let k = 3; k < d.length; k += 4) if (d[k]) return true;
				return false;
			}).length,
			rows: document.querySelectorAll('#functions tbody tr').length,
			facts: document.getElementById('facts').innerText,
			summary: document.getElementById('summary').innerText,
			readyMs: R.readyMs,
		};
	});
	// The widest frame below the root that is narrower than the graph.
	const target = await page.evaluate(() => {
		const fs = window.tachyonReport.frames(), full = fs[0].w;
		const c = fs.filter((f) => f.depth > 0 && f.w < full - 2 && f.name !== '(smaller frames)').sort((a, b) => b.w - a.w)[0];
		const box = document.getElementById('flame').getBoundingClientRect();
		return { node: c.node, name: c.name, width: c.w, full, x: box.left + c.x + c.w / 2, y: box.top + c.depth * 18 + 9 };
	});
	r.target = target;
	await page.mouse.click(target.x, target.y);
	r.zoomed = await page.evaluate(() => {
		const R = window.tachyonReport, z = +document.getElementById('flame').dataset.zoom;
		const f = R.frames().find((f) => f.node === z);
		return { zoom: z, width: f ? f.w : 0, crumbs: document.getElementById('crumbs').textContent, clickMs: R.lastClickMs };
	});
	const top = await page.evaluate(() => { const b = document.getElementById('flame').getBoundingClientRect(); return { x: b.left + 20, y: b.top + 9 }; });
	await page.mouse.move(top.x, top.y);
	await page.mouse.move(top.x + 1, top.y);
	r.tooltip = await page.evaluate(() => document.getElementById('tooltip').hidden ? '' : document.getElementById('tooltip').textContent);
	await page.click('#reset');
	r.reset = await page.evaluate(() => document.getElementById('flame').dataset.zoom);
	await page.fill('#search', target.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
	await page.waitForFunction(() => document.getElementById('matches').textContent !== '');
	r.matches = await page.evaluate(() => document.getElementById('matches').textContent);
	const column = (n) => page.evaluate((n) => [...document.querySelectorAll('#functions tbody tr')].map((tr) => tr.children[n].textContent), n);
	await page.click('#functions th[data-key="total"]');
	r.byTotal = await column(4);
	await page.click('#functions th.fn');
	r.byName = await column(0);
	// Frames by line, then the view of all samples and the off-CPU view.
	await page.click('#granularity button[data-g="line"]');
	r.lines = await page.evaluate(() => ({
		rows: document.querySelectorAll('#functions tbody tr').length,
		withLine: [...document.querySelectorAll('#functions tbody td.loc')].filter((td) => /:\d+$/.test(td.textContent)).length,
		nodes: window.tachyonReport.nodes(),
	}));
	await page.click('#granularity button[data-g="fn"]');
	r.fnNodes = await page.evaluate(() => window.tachyonReport.nodes());
	await page.click('#views button[data-view="3"]');
	r.all = await page.evaluate(() => ({ view: window.tachyonReport.view(), total: window.tachyonReport.total(), summary: document.getElementById('summary').innerText }));
	await page.click('#views button[data-view="2"]');
	r.off = await page.evaluate(() => ({ view: window.tachyonReport.view(), total: window.tachyonReport.total(), waits: document.querySelectorAll('#waits tbody tr').length }));
	await page.mouse.move(0, 0);
	return r;
}`

type browserResult struct {
	Frames, Labelled, Groups, Painted, Rows int
	Facts, Summary                          string
	ReadyMs                                 float64
	Target                                  struct {
		Node        int
		Name        string
		Width, Full float64
	}
	Zoomed struct {
		Zoom           int
		Width, ClickMs float64
		Crumbs         string
	}
	Tooltip, Reset, Matches string
	ByTotal, ByName         []string
	Lines                   struct{ Rows, WithLine, Nodes int }
	FnNodes                 int
	All                     struct {
		View    int
		Total   float64
		Summary string
	}
	Off struct {
		View, Waits int
		Total       float64
	}
}

// TestBrowser opens the report of each demo profile in testdata (or of
// realistic_50k when there is none; $TACHYON_REPORT_PROFILES, a glob,
// overrides) and of 1 M synthetic samples (a 58,000-node flame graph;
// millionSamples) in headless Chromium. It checks that the flame graph,
// the group lanes and the table render, that clicking a frame zooms into
// it, that search finds it and the table sorts, and that nothing is
// logged as an error or fetched from the network. How fast is
// BenchmarkBrowserMillion's.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium")
	}
	browsertest.Require(t)
	pattern := os.Getenv("TACHYON_REPORT_PROFILES") // a glob, to try other profiles
	if pattern == "" {
		pattern = filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin")
	}
	inputs, _ := filepath.Glob(pattern)
	if len(inputs) == 0 {
		inputs = []string{testutil.Vectors(t, "tachyon", "realistic_50k.bin")}
	}
	if m, err := million(); err == nil {
		inputs = append(inputs, m)
	} else {
		t.Fatal(err)
	}
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			f := proftest.Open(t, in)
			page := writePage(t, f, filepath.Base(in))
			shot := filepath.Join(t.ArtifactDir(), "report.png")
			raw, consoleErrors := browsertest.Run(t, browsertest.FileURL(page), browserScript, shot)
			t.Logf("screenshot: %s", shot)
			if len(consoleErrors) > 0 {
				t.Errorf("console errors: %q", consoleErrors)
			}
			var r browserResult
			if err := json.Unmarshal(raw, &r); err != nil {
				t.Fatalf("result %s: %v", raw, err)
			}
			checkBrowser(t, r, f.Header.SampleCount)
		})
	}
}

// writePage writes f's report into t's temporary directory.
func writePage(t *testing.T, f *reader.File, title string) string {
	t.Helper()
	page := filepath.Join(t.TempDir(), "report.html")
	w, err := os.Create(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(w, f, Options{Title: title}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(page); err == nil {
		t.Logf("page %s: %d bytes", page, st.Size())
	}
	return page
}

func checkBrowser(t *testing.T, r browserResult, samples uint32) {
	t.Helper()
	t.Logf("ready after %.0f ms: %d frames drawn, %d group lanes, %d rows; click answered in %.1f ms", r.ReadyMs, r.Frames, r.Groups, r.Rows, r.Zoomed.ClickMs)
	if r.Frames < 2 || r.Labelled == 0 {
		t.Errorf("flame graph: %d frames, %d wide enough for a label", r.Frames, r.Labelled)
	}
	if r.Groups == 0 || r.Painted != r.Groups {
		t.Errorf("timeline: %d group lanes, %d painted", r.Groups, r.Painted)
	}
	if r.Rows == 0 {
		t.Error("functions table is empty")
	}
	if facts := strings.ReplaceAll(r.Facts, ",", ""); !strings.Contains(facts, "Samples") || !strings.Contains(facts, strconv.Itoa(int(samples))) {
		t.Errorf("header facts %q lack the %d samples", r.Facts, samples)
	}
	if !strings.HasPrefix(r.Summary, "View ") || !strings.Contains(r.Summary, "%") {
		t.Errorf("header summary %q does not say the view and its share", r.Summary)
	}
	if r.Zoomed.Zoom != r.Target.Node || r.Zoomed.Width < r.Target.Full-2 || !strings.Contains(r.Zoomed.Crumbs, short(r.Target.Name)) {
		t.Errorf("click on %+v: zoom %+v, want the frame at full width", r.Target, r.Zoomed)
	}
	if r.Zoomed.ClickMs < 0 {
		t.Errorf("click answered in %.1f ms: the page did not time it", r.Zoomed.ClickMs)
	}
	if !strings.Contains(r.Tooltip, "samples") {
		t.Errorf("tooltip %q lacks the samples", r.Tooltip)
	}
	if r.Reset != "0" {
		t.Errorf("zoom after reset = %q", r.Reset)
	}
	if !strings.Contains(r.Matches, "matching") || strings.HasPrefix(r.Matches, "0 ") {
		t.Errorf("search for %q: %q", r.Target.Name, r.Matches)
	}
	totals := make([]int, len(r.ByTotal))
	for i, s := range r.ByTotal {
		totals[i], _ = strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	}
	if len(totals) != r.Rows || !slices.IsSortedFunc(totals, func(a, b int) int { return b - a }) {
		t.Errorf("sorted by total: %v", r.ByTotal[:min(10, len(r.ByTotal))])
	}
	if len(r.ByName) != r.Rows || !slices.IsSorted(r.ByName) {
		t.Errorf("sorted by name: %q", r.ByName[:min(10, len(r.ByName))])
	}
	if r.Lines.Nodes < r.FnNodes || r.Lines.Rows < r.Rows || r.Lines.WithLine == 0 {
		t.Errorf("by line: %+v; by function: %d nodes, %d rows", r.Lines, r.FnNodes, r.Rows)
	}
	if r.All.View != int(ViewAll) || r.All.Total != float64(samples) || !strings.Contains(r.All.Summary, "View all") {
		t.Errorf("view of all samples: %+v, want %d samples", r.All, samples)
	}
	if r.Off.View != int(ViewOffCPU) || r.Off.Waits == 0 {
		t.Errorf("off-CPU view: %+v", r.Off)
	}
}

// short is the page's short name of a function: without its package path.
func short(fn string) string {
	if strings.HasPrefix(fn, "[") {
		return fn
	}
	return fn[strings.LastIndexByte(fn, '/')+1:]
}
