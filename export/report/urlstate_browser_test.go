package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// urlStateScript sets a view through the page of the labelled profile
// (the view of all samples, frames by line, the label value /slow, a
// brushed range, a search and a zoom), then reads it back after a reload,
// in a new tab opened at the page's URL, after the fragment is cleared and
// set again by hand, in the page of the same profile with other options
// (OTHER), and in fresh tabs opened at each of the bad fragments (BAD).
const urlStateScript = `async (page) => {
	const errors = [];
	const watch = (p) => {
		p.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		p.on('pageerror', (e) => errors.push('uncaught: ' + (e && e.stack || e)));
	};
	const state = (p) => p.evaluate(() => {
		const R = window.tachyonReport, z = R.zoom(), t = R.tree();
		const path = [];
		for (let i = z; i > 0; i = t.parent[i]) path.unshift(t.names[i]);
		return {
			view: R.view(), gran: R.gran(), range: R.range(), slices: R.slices, query: R.query(), search: document.getElementById('search').value,
			zoom: z, zoomPath: path, key: R.labels.key(), picked: R.labels.picked(), total: R.total(), hash: location.hash,
			pressed: [...document.querySelectorAll('#views button, #granularity button')].filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.dataset.view || b.dataset.g),
			keyShown: document.getElementById('label-key').value,
			valuesShown: [...document.getElementById('label-values').selectedOptions].map((o) => o.textContent.split(' — ')[0]),
			brush: !document.getElementById('brush').hidden,
		};
	});
	const open = async (url) => {
		const p = await page.context().browser().newPage({ viewport: page.viewportSize() });
		watch(p);
		await p.goto(url, { waitUntil: 'load' });
		await p.waitForSelector('body[data-ready]');
		return p;
	};
	await page.waitForSelector('body[data-ready]');
	const base = page.url().split('#')[0];
	const r = { initial: await state(page) };

	await page.click('#views button[data-view="3"]');
	await page.click('#granularity button[data-g="line"]');
	await page.selectOption('#label-key', 'http.route');
	const slow = await page.evaluate(() => [...document.querySelectorAll('#label-values option')].find((o) => o.textContent.startsWith('/slow ')).value);
	await page.selectOption('#label-values', slow);
	const axis = await page.evaluate(() => { const b = document.querySelector('#lanes canvas.axis').getBoundingClientRect(); return { x: b.left, y: b.top + b.height / 2, w: b.width }; });
	await page.mouse.move(axis.x + 0.3 * axis.w, axis.y);
	await page.mouse.down();
	await page.mouse.move(axis.x + 0.6 * axis.w, axis.y, { steps: 6 });
	await page.mouse.up();
	await page.fill('#search', 'app');
	await page.waitForFunction(() => window.tachyonReport.query() === 'app');
	await page.evaluate(() => document.getElementById('flame').scrollIntoView());
	const target = await page.evaluate(() => {
		const fs = window.tachyonReport.frames(), deepest = Math.max(...fs.map((f) => f.depth));
		const f = fs.filter((f) => f.depth === Math.min(3, deepest)).sort((a, b) => b.w - a.w)[0];
		const box = document.getElementById('flame').getBoundingClientRect();
		return { x: box.left + f.x + f.w / 2, y: box.top + f.depth * 18 + 9 };
	});
	await page.mouse.click(target.x, target.y);
	await page.mouse.move(0, 0);
	r.set = await state(page);

	await page.reload({ waitUntil: 'load' });
	await page.waitForSelector('body[data-ready]');
	r.reloaded = await state(page);

	const tab = await open(base + r.set.hash);
	r.opened = await state(tab);
	await tab.evaluate(() => { location.hash = ''; });
	await tab.waitForFunction(() => window.tachyonReport.view() !== 3);
	r.cleared = await state(tab);
	await tab.evaluate((h) => { location.hash = h; }, r.set.hash);
	await tab.waitForFunction(() => window.tachyonReport.zoom() > 0);
	r.changed = await state(tab);
	await tab.close();

	const other = await open(OTHER + r.set.hash);
	r.other = await state(other);
	await other.close();

	r.bad = [];
	for (const h of BAD) {
		const p = await open(base + h);
		r.bad.push(await state(p));
		await p.close();
	}
	r.errors = errors;
	return r;
}`

// pageState is the view's state as urlStateScript reads it.
type pageState struct {
	View        int
	Gran        string
	Range       [2]int
	Slices      int
	Query       string
	Search      string
	Zoom        int
	ZoomPath    []string
	Key         string
	Picked      []string
	Total       float64
	Hash        string
	Pressed     []string
	KeyShown    string
	ValuesShown []string
	Brush       bool
}

// badFragments are fragments that do not fit the labelled profile's page,
// with the part of each that does ("" for none): it is kept, the rest
// ignored.
var badFragments = []struct{ hash, keep string }{
	{"#view=9&gran=flat&range=50-20&slices=100&zoom=nothere&lk=no.such.key&lv=%2Fslow", ""},
	{"#view=-1&range=0-99999&slices=100&zoom=zz.zz", ""},
	{"#range=abc&slices=0&view=1e3&zoom=", ""},
	{"#range=10-20&slices=x", ""},
	{"#%E0%A4%A&&&=&view", ""},
	{"#" + strings.Repeat("view=3&", 2000), "view=3"},
	{"#lk=http.route&lv=%2Fnot-a-route&view=2", "view=2&lk=http.route"},
	{"#lv=%2Fslow&view=0", ""},
	{"#q=(((", "q=%28%28%28"},
}

// TestBrowserURLState checks that the page keeps its view in the URL's
// fragment: a view set through the page (view, frames by line, a label
// key and value, a brushed range, a search and a zoom) is the same after a
// reload, in a new tab opened at the URL, after the fragment is edited
// back to it, and, scaled to its slices, in the page of a profile that
// holds these samples and more, whose call tree's nodes come in another
// order; a fragment that does not fit the page is ignored
// and written again without it.
func TestBrowserURLState(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium")
	}
	browsertest.Require(t)
	path := labelledFile(t, true)
	f := proftest.Open(t, path)
	page := writePage(t, f, "labelled")
	// The other page: the same samples and those of three goroutines of
	// another handler, heavier than the others, so that its call tree's
	// nodes come in another order; in more slices.
	spec := labelledSpec()
	big := []string{"app.work", "app.bigHandler", "net/http.HandlerFunc.ServeHTTP", "net/http.(*conn).serve"}
	for range 3 {
		spec = append(spec, []lphase{{300, tachyon.Running, "", false, big, []tachyon.Label{{Key: keyRoute, Value: "/big"}}}})
	}
	otherFile := proftest.WriteSamples(t, writer.Options{StartTime: labelledStart, Interval: labelledInterval}, labelledSamples(spec, true))
	other := filepath.Join(t.TempDir(), "other.html")
	writePageOptions(t, proftest.Open(t, otherFile), other, Options{Title: "other", Slices: 400})
	bad := make([]string, len(badFragments))
	for i, b := range badFragments {
		bad[i] = b.hash
	}
	script := strings.NewReplacer("OTHER", jsString(browsertest.FileURL(other)), "BAD", jsString(bad)).Replace(urlStateScript)
	raw, consoleErrors := browsertest.Run(t, browsertest.FileURL(page), script, "")
	var r struct {
		Initial, Set, Reloaded, Opened, Cleared, Changed, Other pageState
		Bad                                                     []pageState
		Errors                                                  []string
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if errs := append(consoleErrors, r.Errors...); len(errs) > 0 {
		t.Errorf("console errors or network requests: %q", errs)
	}
	t.Logf("set: %+v\nother: %+v", r.Set, r.Other)
	def := r.Initial
	if def.Hash != "" || def.View != 0 || def.Gran != "fn" || def.Range != [2]int{0, def.Slices} || def.Key != keyMethod || def.Picked != nil || def.Zoom != 0 || def.Query != "" {
		t.Fatalf("page opened without a fragment: %+v", def)
	}
	s := r.Set
	if s.View != int(ViewAll) || s.Gran != "line" || s.Range == def.Range || s.Key != keyRoute || !slices.Equal(s.Picked, []string{routeSlow}) || s.Query != "app" || s.Zoom == 0 {
		t.Fatalf("state set through the page: %+v", s)
	}
	for _, part := range []string{"view=3", "gran=line", "range=", "slices=", "q=app", "zoom=", "lk=http.route", "lv=%2Fslow"} {
		if !strings.Contains(s.Hash, part) {
			t.Errorf("fragment %q lacks %q", s.Hash, part)
		}
	}
	for name, got := range map[string]pageState{"reloaded": r.Reloaded, "opened at the URL": r.Opened, "fragment set again": r.Changed} {
		checkSameState(t, name, got, s)
	}
	if c := r.Cleared; c.View != def.View || c.Gran != def.Gran || c.Range != def.Range || c.Key != def.Key || c.Picked != nil || c.Zoom != 0 || c.Query != "" || c.Brush {
		t.Errorf("fragment cleared: %+v, want the default view", c)
	}

	// The other page holds the same profile in other slices: the range is
	// scaled to them, the zoom finds the same stack.
	o := r.Other
	lo, hi := s.Range[0]*o.Slices/s.Slices, (s.Range[1]*o.Slices+s.Slices-1)/s.Slices
	if o.Slices == s.Slices || o.Range != [2]int{lo, hi} {
		t.Errorf("other page: range %v of %d slices, want %v (%v of %d)", o.Range, o.Slices, [2]int{lo, hi}, s.Range, s.Slices)
	}
	if o.Zoom == s.Zoom {
		t.Errorf("other page: zoomed node %d, as in the first: the test does not show that the zoom is found by its stack", o.Zoom)
	}
	if o.View != s.View || o.Gran != s.Gran || o.Key != s.Key || !slices.Equal(o.Picked, s.Picked) || o.Query != s.Query || !slices.Equal(o.ZoomPath, s.ZoomPath) {
		t.Errorf("other page: %+v, want the view %+v", o, s)
	}

	for i, b := range badFragments {
		got := r.Bad[i]
		wantHash := ""
		if b.keep != "" {
			wantHash = "#" + b.keep
		}
		if got.Hash != wantHash {
			t.Errorf("fragment %.60q: written again as %q, want %q", b.hash, got.Hash, wantHash)
		}
		want := def
		for kv := range strings.SplitSeq(b.keep, "&") {
			switch k, v, _ := strings.Cut(kv, "="); k {
			case "view":
				want.View = int(v[0] - '0')
			case "lk":
				want.Key = v
			case "q":
				want.Query = "((("
			}
		}
		if got.View != want.View || got.Gran != "fn" || got.Range != def.Range || got.Key != want.Key || got.Picked != nil || got.Zoom != 0 || got.Query != want.Query || got.Brush {
			t.Errorf("fragment %.60q: %+v, want %+v", b.hash, got, want)
		}
	}
}

// checkSameState checks that got shows the view want, in the state and on
// the page's controls.
func checkSameState(t *testing.T, name string, got, want pageState) {
	t.Helper()
	if got.Hash != want.Hash || got.View != want.View || got.Gran != want.Gran || got.Range != want.Range || got.Query != want.Query ||
		got.Search != want.Query || got.Zoom != want.Zoom || !slices.Equal(got.ZoomPath, want.ZoomPath) || got.Key != want.Key ||
		!slices.Equal(got.Picked, want.Picked) || got.Total != want.Total {
		t.Errorf("%s: %+v, want %+v", name, got, want)
	}
	if !slices.Equal(got.Pressed, want.Pressed) || got.KeyShown != want.Key || !slices.Equal(got.ValuesShown, want.Picked) || !got.Brush {
		t.Errorf("%s: controls show views %q, key %q, values %q, brush %v; want %q, %q, %q, a brush",
			name, got.Pressed, got.KeyShown, got.ValuesShown, got.Brush, want.Pressed, want.Key, want.Picked)
	}
}

// writePageOptions writes f's report with opt to path.
func writePageOptions(t *testing.T, f *reader.File, path string, opt Options) {
	t.Helper()
	w, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(w, f, opt); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
