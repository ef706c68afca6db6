package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/browsertest"
	"github.com/gotachyon/profiler/internal/proftest"
	"github.com/gotachyon/profiler/internal/testutil"
)

// browserScript drives the report: it waits for the page, reads what
// rendered, zooms into a frame by clicking it, hovers it, searches for it
// and sorts the functions table by total and by name.
const browserScript = `async (page) => {
	await page.waitForSelector('body[data-ready]');
	const flame = () => document.getElementById('flame');
	const r = await page.evaluate(() => ({
		frames: document.querySelectorAll('#flame .fr').length,
		labelled: [...document.querySelectorAll('#flame .fr')].filter((e) => e.textContent).length,
		lanes: document.querySelectorAll('#timeline .lane').length,
		painted: [...document.querySelectorAll('#timeline canvas.strip')].filter((c) => {
			const d = c.getContext('2d').getImageData(0, 0, c.width, 1).data;
			for (let k = 3; k < d.length; k += 4) if (d[k]) return true;
			return false;
		}).length,
		rows: document.querySelectorAll('#functions tbody tr').length,
		facts: document.getElementById('facts').innerText,
		readyMs: window.tachyonReport.readyMs,
	}));
	// The widest frame below the root that is narrower than the graph.
	const target = await page.evaluate(() => {
		const full = document.getElementById('flame').clientWidth;
		const els = [...document.querySelectorAll('#flame .fr')].filter((e) => e.dataset.i !== '0' && parseFloat(e.style.width) < full - 2);
		els.sort((a, b) => parseFloat(b.style.width) - parseFloat(a.style.width));
		return { i: els[0].dataset.i, width: parseFloat(els[0].style.width), name: els[0].textContent, full };
	});
	r.target = target;
	const sel = '#flame .fr[data-i="' + target.i + '"]';
	await page.click(sel);
	r.zoomed = await page.evaluate((sel) => ({
		zoom: document.getElementById('flame').dataset.zoom,
		width: parseFloat(document.querySelector(sel).style.width),
		crumbs: document.getElementById('crumbs').textContent,
	}), sel);
	await page.hover(sel);
	r.tooltip = await page.evaluate(() => document.getElementById('tooltip').hidden ? '' : document.getElementById('tooltip').textContent);
	await page.click('#reset');
	r.reset = await page.evaluate(() => document.getElementById('flame').dataset.zoom);
	await page.fill('#search', target.name);
	await page.waitForFunction(() => document.getElementById('matches').textContent !== '');
	r.search = await page.evaluate(() => ({
		hits: [...document.querySelectorAll('#flame .fr.hit')].map((e) => e.textContent),
		matches: document.getElementById('matches').textContent,
	}));
	const column = (n) => page.evaluate((n) => [...document.querySelectorAll('#functions tbody tr')].map((tr) => tr.children[n].textContent), n);
	await page.click('#functions th[data-key="total"]');
	r.byTotal = await column(4);
	await page.click('#functions th.fn');
	r.byName = await column(0);
	await page.mouse.move(0, 0);
	return r;
}`

type browserResult struct {
	Frames, Labelled, Lanes, Painted, Rows int
	Facts                                  string
	ReadyMs                                float64
	Target                                 struct {
		I           string
		Width, Full float64
		Name        string
	}
	Zoomed struct {
		Zoom   string
		Width  float64
		Crumbs string
	}
	Tooltip, Reset string
	Search         struct {
		Hits    []string
		Matches string
	}
	ByTotal, ByName []string
}

// TestBrowser opens the report of each demo profile (or of realistic_50k
// when there is none; $TACHYON_REPORT_PROFILES, a glob, overrides) in headless Chromium and checks that the flame graph, the
// timeline and the table render, that clicking a frame zooms, that search
// highlights and the table sorts, and that nothing is logged as an error or
// fetched from the network. The screenshot is kept with go test -artifacts.
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
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			f := proftest.Open(t, in)
			page := filepath.Join(t.TempDir(), "report.html")
			w, err := os.Create(page)
			if err != nil {
				t.Fatal(err)
			}
			if err := Write(w, f, Options{Title: filepath.Base(in)}); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
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

func checkBrowser(t *testing.T, r browserResult, samples uint32) {
	t.Helper()
	t.Logf("ready after %.0f ms: %d frames, %d lanes, %d rows", r.ReadyMs, r.Frames, r.Lanes, r.Rows)
	if r.Frames < 2 || r.Labelled == 0 {
		t.Errorf("flame graph: %d frames, %d labelled", r.Frames, r.Labelled)
	}
	if r.Lanes == 0 || r.Painted != r.Lanes {
		t.Errorf("timeline: %d lanes, %d painted", r.Lanes, r.Painted)
	}
	if r.Rows == 0 {
		t.Error("functions table is empty")
	}
	if facts := strings.ReplaceAll(r.Facts, ",", ""); !strings.Contains(facts, "Samples") || !strings.Contains(facts, strconv.Itoa(int(samples))) {
		t.Errorf("header facts %q lack the %d samples", r.Facts, samples)
	}
	// The acceptance bound for realistic_50k: open in under 2 s.
	if r.ReadyMs > 2000 {
		t.Errorf("page ready after %.0f ms, want under 2 s", r.ReadyMs)
	}
	if r.Zoomed.Zoom != r.Target.I || r.Zoomed.Width < r.Target.Full-2 || r.Target.Width >= r.Zoomed.Width || !strings.Contains(r.Zoomed.Crumbs, r.Target.Name) {
		t.Errorf("click on %+v: zoom %+v, want the frame at full width", r.Target, r.Zoomed)
	}
	if !strings.Contains(r.Tooltip, r.Target.Name) || !strings.Contains(r.Tooltip, "samples") {
		t.Errorf("tooltip %q lacks the function and samples", r.Tooltip)
	}
	if r.Reset != "0" {
		t.Errorf("zoom after reset = %q", r.Reset)
	}
	if len(r.Search.Hits) == 0 || !slices.Contains(r.Search.Hits, r.Target.Name) || !strings.Contains(r.Search.Matches, "matching") {
		t.Errorf("search for %q: %+v", r.Target.Name, r.Search)
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
}
