package report

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// layoutWidths are the window widths the page must fit.
var layoutWidths = []int{1280, 1400, 1920, 2560}

// layoutScript sets the window to each of WIDTHS, takes a screenshot into
// SHOTS (a printf pattern) and measures the page: the document's width,
// the boxes of its parts, and the width hidden inside each scrolled box.
const layoutScript = `async (page) => {
	await page.waitForSelector('body[data-ready]');
	const out = [];
	for (const w of WIDTHS) {
		await page.setViewportSize({ width: w, height: 1000 });
		await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
		await page.screenshot({ path: SHOTS.replace('%d', w), fullPage: true });
		out.push(await page.evaluate(() => {
			const de = document.documentElement, box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, width: r.width }; };
			const parts = {};
			for (const sel of ['header', '#timeline-section', '#flame-section', '#flame-wrap', '#tl-wrap', '#table-section', '#labels-section', '#functions', '#waits', '#labels', '#label-values']) {
				const e = document.querySelector(sel);
				if (e) parts[sel] = box(e);
			}
			['#table-section > div:first-child', '#table-section > div:last-child'].forEach((sel, i) => { parts[i ? 'waits panel' : 'functions panel'] = box(document.querySelector(sel)); });
			const hidden = {}; // boxes with content past their right edge
			for (const e of document.querySelectorAll('.tablewrap, #tl-wrap, header, section')) {
				if (e.scrollWidth > e.clientWidth + 1) hidden[e.id || e.className || e.tagName] = e.scrollWidth - e.clientWidth;
			}
			// Per row of the label table: blocked samples, and those of its wait reasons' columns.
			const waits = [...document.querySelectorAll('#labels tbody tr, #labels tfoot tr')].map((tr) => [
				+tr.querySelector('td[data-col="blocked"]').dataset.n,
				[...tr.querySelectorAll('td[data-col^="wait:"]')].reduce((a, td) => a + +td.dataset.n, 0)]);
			const reasonCols = [...document.querySelectorAll('#labels th[data-col^="wait:"]')].map((th) => th.dataset.col);
			return { window: innerWidth, client: de.clientWidth, scroll: de.scrollWidth, body: document.body.scrollWidth, parts, hidden, waits, reasonCols,
				fnCells: [...document.querySelectorAll('#functions tbody td.fn')].slice(0, 3).map((td) => td.getBoundingClientRect().width) };
		}));
	}
	return out;
}`

type layoutBox struct{ Left, Right, Width float64 }

type layoutResult struct {
	Window, Client, Scroll, Body int
	Parts                        map[string]layoutBox
	Hidden                       map[string]int
	FnCells                      []float64
	Waits                        [][2]float64
	ReasonCols                   []string
}

// wideFile writes a labelled profile whose names are long: functions of
// deep package paths and long methods, long file paths, many wait reasons
// and long label values, so that the page's tables are as wide as a real
// service's.
func wideFile(t *testing.T) string {
	t.Helper()
	pkg := "github.com/an-organisation-with-a-long-name/a-service-with-a-long-name/internal/platform/storage/replication"
	fn := func(s string) string { return pkg + ".(*ReplicationCoordinatorWithALongName)." + s }
	handler := []string{fn("applyBatchOfChangesFromTheLeader"), fn("handleIncomingReplicationStream"), "net/http.HandlerFunc.ServeHTTP", "net/http.(*conn).serve"}
	reasons := []string{"chan receive", "chan send", "select", "sync.Mutex.Lock", "sync.RWMutex.RLock", "sync.WaitGroup.Wait", "IO wait", "sleep", "GC assist wait", "semacquire", "sync.Cond.Wait", "select (no cases)"}
	var spec [][]lphase
	for i, r := range reasons {
		labels := []tachyon.Label{
			{Key: "http.route", Value: fmt.Sprintf("/api/v1/tenants/{tenant}/replication/streams/{stream}/batches/%d", i)},
			{Key: "tenant", Value: fmt.Sprintf("tenant-with-a-rather-long-identifier-%04d", i)},
		}
		code := append([]string{fn(fmt.Sprintf("waitForTheNextBatchOfChangesNumber%d", i))}, handler...)
		spec = append(spec, []lphase{
			{100, tachyon.Running, "", false, code, labels},
			{50, tachyon.Syscall, "", false, append([]string{"syscall.Syscall6"}, code...), labels},
			{150, tachyon.Blocked, r, false, code, labels},
		})
	}
	return proftest.WriteSamples(t, writer.Options{StartTime: labelledStart, Interval: labelledInterval}, labelledSamples(spec, true))
}

// TestBrowserLayout opens the page of a profile with long names at window
// widths from 1280 to 2560 px and checks that the page uses the window's
// width and cuts nothing: no horizontal scrollbar, every part within the
// window, no table wider than its box, the flame graph and the tables as
// wide as the window; the two tables side by side when there is room.
// The screenshots are left in the test's artifact directory.
func TestBrowserLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium")
	}
	browsertest.Require(t)
	page := writePage(t, proftest.Open(t, wideFile(t)), "wide")
	shots := filepath.Join(t.ArtifactDir(), "layout-%d.png")
	script := strings.NewReplacer("WIDTHS", jsString(layoutWidths), "SHOTS", jsString(shots)).Replace(layoutScript)
	raw, consoleErrors := browsertest.Run(t, browsertest.FileURL(page), script, "")
	t.Logf("screenshots: %s", shots)
	if len(consoleErrors) > 0 {
		t.Errorf("console errors or network requests: %q", consoleErrors)
	}
	var rs []layoutResult
	if err := json.Unmarshal(raw, &rs); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	for _, r := range rs {
		w := float64(r.Client)
		if r.Scroll > r.Client || r.Body > r.Client {
			t.Errorf("%d px: the page is %d px wide (body %d) in a window of %d: a horizontal scrollbar", r.Window, r.Scroll, r.Body, r.Client)
		}
		for name, b := range r.Parts {
			if b.Left < 0 || b.Right > w+0.5 {
				t.Errorf("%d px: %s spans %.0f to %.0f px, past the window's %d", r.Window, name, b.Left, b.Right, r.Client)
			}
		}
		for name, n := range r.Hidden {
			t.Errorf("%d px: %s hides %d px of its content on the right", r.Window, name, n)
		}
		// The page uses the window's width: the flame graph spans it, less
		// the margins; the tables fill their panels.
		if b := r.Parts["#flame-wrap"]; b.Width < w-60 {
			t.Errorf("%d px: the flame graph is %.0f px wide", r.Window, b.Width)
		}
		fp, wp := r.Parts["functions panel"], r.Parts["waits panel"]
		if r.Parts["#functions"].Width < fp.Width-2 || r.Parts["#waits"].Width < wp.Width-2 || r.Parts["#labels"].Width > r.Parts["#labels-section"].Width {
			t.Errorf("%d px: tables %+v in panels %+v, %+v", r.Window, r.Parts, fp, wp)
		}
		side := wp.Left > fp.Right
		if right := max(fp.Right, wp.Right); right < w-40 {
			t.Errorf("%d px: the tables end at %.0f px", r.Window, right)
		}
		if r.Window >= 1920 && !side {
			t.Errorf("%d px: the wait reasons' table is under the functions', not beside", r.Window)
		}
		// The label table's wait reasons that do not fit share one column:
		// the reasons' columns still add up to the blocked samples.
		for i, w := range r.Waits {
			if w[0] != w[1] {
				t.Errorf("%d px: label table row %d: %v blocked samples, %v in its wait reasons' columns %q", r.Window, i, w[0], w[1], r.ReasonCols)
			}
		}
		if len(r.Waits) == 0 || (r.Window < 1920 && !slices.Contains(r.ReasonCols, "wait:*")) || (r.Window == 2560 && len(r.ReasonCols) != 12) {
			t.Errorf("%d px: label table's wait reasons' columns %q", r.Window, r.ReasonCols)
		}
		for _, c := range r.FnCells {
			if c < 200 {
				t.Errorf("%d px: function names get %.0f px", r.Window, c)
			}
		}
	}
}

// jsString returns v as a JavaScript literal.
func jsString(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
