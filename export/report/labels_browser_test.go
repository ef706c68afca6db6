package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
)

// labelsScript drives the labelled report: it reads the table by label ×
// state; picks the key http.route in the picker, then the value /slow;
// brushes 30 % to 60 % of the timeline; then picks all values again, the
// range still brushed. At each step it reads the table, the range and the
// samples of the view of all samples.
const labelsBrowserScript = `async (page) => {
	await page.waitForSelector('body[data-ready]');
	const read = () => page.evaluate(() => {
		const R = window.tachyonReport;
		const row = (tr) => {
			const cols = {};
			for (const td of tr.querySelectorAll('td[data-col]')) cols[td.dataset.col] = +td.dataset.n;
			return { kind: tr.dataset.kind || '', name: tr.querySelector('td.fn').textContent, cols };
		};
		return {
			key: R.labels.key(), range: R.range(), view: R.view(), total: R.total(),
			rows: [...document.querySelectorAll('#labels tbody tr')].filter((tr) => tr.dataset.kind).map(row),
			foot: row(document.querySelector('#labels tfoot tr')),
			head: [...document.querySelectorAll('#labels thead th')].map((th) => th.textContent),
			scope: document.getElementById('labels-scope').textContent,
			summary: document.getElementById('summary').innerText,
		};
	});
	await page.click('#views button[data-view="3"]');
	const r = { keys: await page.evaluate(() => [...document.querySelectorAll('#label-key option')].map((o) => o.value)) };
	r.first = await read();
	await page.selectOption('#label-key', 'http.route');
	r.route = await read();
	const slow = await page.evaluate(() => [...document.querySelectorAll('#label-values option')].find((o) => o.textContent.startsWith('/slow ')).value);
	await page.selectOption('#label-values', slow);
	r.slow = await read();
	const axis = await page.evaluate(() => { const b = document.querySelector('#lanes canvas.axis').getBoundingClientRect(); return { x: b.left, y: b.top + b.height / 2, w: b.width }; });
	await page.mouse.move(axis.x + 0.3 * axis.w, axis.y);
	await page.mouse.down();
	await page.mouse.move(axis.x + 0.45 * axis.w, axis.y, { steps: 4 });
	await page.mouse.move(axis.x + 0.6 * axis.w, axis.y, { steps: 4 });
	await page.mouse.up();
	r.brushed = await read();
	await page.selectOption('#label-values', '');
	r.all = await read();
	await page.mouse.move(0, 0);
	return r;
}`

type labelsRow struct {
	Kind, Name string
	Cols       map[string]uint64
}

type labelsState struct {
	Key     string
	Range   [2]int
	View    int
	Total   float64
	Rows    []labelsRow
	Foot    labelsRow
	Head    []string
	Scope   string
	Summary string
}

// TestBrowserLabels opens the report of the labelled profile in headless
// Chromium and checks the table by label × state against ByLabel, number
// for number, for the whole profile and for a brushed range, with all
// values of http.route and with /slow picked; and that the pick filters
// the views: the view of all samples holds the values picked, in the
// range.
func TestBrowserLabels(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium")
	}
	browsertest.Require(t)
	f := proftest.Open(t, labelledFile(t, true))
	p, err := Aggregate(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	page := writePage(t, f, "labelled")
	shot := filepath.Join(t.ArtifactDir(), "labels-report.png")
	raw, consoleErrors := browsertest.Run(t, browsertest.FileURL(page), labelsBrowserScript, shot)
	t.Logf("screenshot: %s", shot)
	if len(consoleErrors) > 0 {
		t.Errorf("console errors or network requests: %q", consoleErrors)
	}
	var r struct {
		Keys                             []string
		First, Route, Slow, Brushed, All labelsState
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if want := p.LabelKeys(); strings.Join(r.Keys, ",") != strings.Join(want, ",") {
		t.Errorf("picker keys %q, want %q", r.Keys, want)
	}
	if r.First.Key != keyMethod || r.Route.Key != keyRoute {
		t.Errorf("keys shown: %q first, then %q; want %q, then %q", r.First.Key, r.Route.Key, keyMethod, keyRoute)
	}
	whole := [2]int{0, p.Slices}
	checkPageTable(t, "first", p, r.First, keyMethod, nil)
	checkPageTable(t, "http.route", p, r.Route, keyRoute, nil)
	checkPageTable(t, "/slow", p, r.Slow, keyRoute, []string{routeSlow})
	checkPageTable(t, "/slow, brushed", p, r.Brushed, keyRoute, []string{routeSlow})
	checkPageTable(t, "all, brushed", p, r.All, keyRoute, nil)
	if r.Route.Range != whole || r.Slow.Range != whole || r.Brushed.Range == whole || r.All.Range != r.Brushed.Range {
		t.Errorf("ranges %v, %v, %v, %v: want whole, whole, brushed, the same", r.Route.Range, r.Slow.Range, r.Brushed.Range, r.All.Range)
	}
	if !strings.Contains(r.Brushed.Scope, "in the range") || !strings.Contains(r.Slow.Scope, "1 value picked") {
		t.Errorf("table scopes %q, %q", r.Slow.Scope, r.Brushed.Scope)
	}
	if r.Slow.Total >= r.Route.Total || r.Brushed.Total >= r.Slow.Total || r.Brushed.Total >= r.All.Total {
		t.Errorf("samples of the view of all: %v all, %v /slow, %v /slow brushed, %v all brushed: the filters do not narrow it",
			r.Route.Total, r.Slow.Total, r.Brushed.Total, r.All.Total)
	}
}

// checkPageTable checks the page's table against p.ByLabel for its range,
// the rows of the values picked (all for none), and that the view of all
// samples holds the table's total.
func checkPageTable(t *testing.T, step string, p *Profile, s labelsState, key string, picked []string) {
	t.Helper()
	var want []LabelRow
	for _, r := range p.ByLabel(key, s.Range[0], s.Range[1]) {
		if picked == nil || (!r.None && !r.Other && slices.Contains(picked, r.Value)) {
			want = append(want, r)
		}
	}
	if len(s.Rows) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %+v", step, len(s.Rows), len(want), s.Rows)
	}
	var total uint64
	for i, w := range want {
		got := s.Rows[i]
		name := w.Value
		if w.None {
			name = "(without the key)"
		}
		cols := map[string]uint64{
			"running": w.Classes[OnCPU], "runnable": w.Classes[WaitingCPU], "syscall": w.Classes[InSyscall],
			"blocked": w.Classes[OffCPU], "total": w.Samples,
		}
		if w.Classes[Other] > 0 || got.Cols["unknown"] > 0 {
			cols["unknown"] = w.Classes[Other]
		}
		for reason, n := range w.Waits {
			cols["wait:"+reason] = n
		}
		for c, n := range got.Cols {
			if _, ok := cols[c]; !ok && n != 0 {
				t.Errorf("%s: row %q column %q: %d samples, want none", step, name, c, n)
			}
		}
		for c, n := range cols {
			if got.Cols[c] != n {
				t.Errorf("%s: row %q column %q: %d samples, want %d", step, name, c, got.Cols[c], n)
			}
		}
		if got.Name != name || (got.Kind == "none") != w.None {
			t.Errorf("%s: row %d is %q (%s), want %q", step, i, got.Name, got.Kind, name)
		}
		total += w.Samples
	}
	if s.Foot.Cols["total"] != total || s.Total != float64(total) || s.View != int(ViewAll) {
		t.Errorf("%s: table total %d, view %d holds %v; want %d", step, s.Foot.Cols["total"], s.View, s.Total, total)
	}
}

// TestPageWithoutLabels checks that the page of a profile without labels
// has neither the labels' script and style nor their data.
func TestPageWithoutLabels(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, proftest.Open(t, labelledFile(t, false)), Options{}); err != nil {
		t.Fatal(err)
	}
	page := buf.Bytes()
	for _, s := range []string{labelsScript, labelsStyle, `"labels":`} {
		if bytes.Contains(page, []byte(s)) {
			t.Errorf("page without labels holds %.40q", s)
		}
	}
	if d := extract(t, page); d.Labels != nil {
		t.Error("document of a profile without labels has labels")
	}
	buf.Reset()
	if err := Write(&buf, proftest.Open(t, labelledFile(t, true)), Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte(labelsScript)) || extract(t, buf.Bytes()).Labels == nil {
		t.Error("page with labels lacks the labels' script or data")
	}
}
