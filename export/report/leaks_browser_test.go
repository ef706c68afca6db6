package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// leaksBrowserScript reads the leaks table, shows the groups that do not
// grow and reads it again, then groups the views by creation site in the
// label picker and reads the values it offers.
const leaksBrowserScript = `async (page) => {
	await page.waitForSelector('body[data-ready]');
	const read = () => page.evaluate(() => [...document.querySelectorAll('#leaks tbody tr')].map((tr) => ({
		listed: tr.dataset.listed,
		cells: [...tr.querySelectorAll('td')].map((td) => td.textContent),
		spark: (tr.querySelector('svg.spark') || { getAttribute: () => '' }).getAttribute('aria-label'),
	})));
	const r = { before: await read(), button: await page.evaluate(() => document.getElementById('leaks-more').textContent) };
	await page.click('#leaks-more');
	r.all = await read();
	r.afterTimeline = await page.evaluate(() => document.getElementById('timeline-section').nextElementSibling.id);
	await page.selectOption('#label-key', 'created_by');
	r.key = await page.evaluate(() => window.tachyonReport.labels.key());
	r.values = await page.evaluate(() => [...document.querySelectorAll('#label-values option')].map((o) => o.textContent));
	return r;
}`

// TestBrowserLeaks opens the report of proftest.LeakFile in headless
// Chromium: the leaks view lists the leak alone, with its counts by
// slice (the sparkline's), growth and goroutines proved unreachable as
// Profile.Leaks has them, and the pool on demand; the label picker groups
// by creation site.
func TestBrowserLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("drives headless Chromium")
	}
	browsertest.Require(t)
	f := proftest.Open(t, proftest.LeakFile(t))
	p, err := Aggregate(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Leaks == nil || len(p.Leaks.Groups) != 2 {
		t.Fatalf("leaks %+v, want two groups", p.Leaks)
	}
	page := writePage(t, f, "leaks")
	shot := filepath.Join(t.ArtifactDir(), "leaks-report.png")
	raw, consoleErrors := browsertest.Run(t, browsertest.FileURL(page), leaksBrowserScript, shot)
	t.Logf("screenshot: %s", shot)
	if len(consoleErrors) > 0 {
		t.Errorf("console errors or network requests: %q", consoleErrors)
	}
	type row struct {
		Listed string
		Cells  []string
		Spark  string
	}
	var r struct {
		Before, All   []row
		Button, Key   string
		AfterTimeline string
		Values        []string
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	check := func(step string, got row, i int) {
		g := p.Leaks.Groups[i]
		counts := strings.Trim(fmt.Sprint(g.Counts), "[]")
		if got.Cells[1] != g.Site || got.Spark != "count by slice: "+counts || got.Cells[4] != fmt.Sprint(g.Last()) {
			t.Errorf("%s: row %d %q (spark %q), want site %q, counts %s", step, i, got.Cells, got.Spark, g.Site, counts)
		}
		growth := "flat"
		if g.Grows {
			growth = fmt.Sprintf("+%.2f/s", g.Rate)
		}
		never := "\u2013"
		if u := g.LastUnreachable(); u > 0 {
			never = fmt.Sprintf("%d of %d", u, g.Last())
		}
		if got.Cells[5] != growth || got.Cells[6] != never {
			t.Errorf("%s: row %d growth %q, can never wake %q; want %q, %q", step, i, got.Cells[5], got.Cells[6], growth, never)
		}
	}
	if len(r.Before) != 1 || r.Before[0].Listed != "1" {
		t.Fatalf("before: %+v, want the leak alone", r.Before)
	}
	check("before", r.Before[0], 0)
	if len(r.All) != 2 || r.All[1].Listed != "0" || !strings.Contains(r.Button, "1 group of") {
		t.Fatalf("all: %+v (button %q), want the leak and the pool", r.All, r.Button)
	}
	check("all", r.All[0], 0)
	check("all", r.All[1], 1)
	if !strings.Contains(r.All[0].Cells[2], "[chan send]") || !strings.Contains(r.All[0].Cells[2], "main.send leak.go:31") {
		t.Errorf("leak's wait %q", r.All[0].Cells[2])
	}
	if r.AfterTimeline != "leaks-section" {
		t.Errorf("the section after the timeline is %q", r.AfterTimeline)
	}
	if r.Key != tachyon.LabelCreatedBy || !hasPrefix(r.Values, proftest.LeakSite+" ") || !hasPrefix(r.Values, proftest.PoolSite+" ") {
		t.Errorf("picker key %q, values %q: want the creation sites", r.Key, r.Values)
	}
}

func hasPrefix(list []string, p string) bool {
	for _, s := range list {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// TestPageWithoutLeaks checks that the page of a profile without
// goroutines blocked through a slice (here: one always running) has
// neither the leaks' script nor their data.
func TestPageWithoutLeaks(t *testing.T) {
	var samples []writer.Sample
	for i := range 300 {
		st := tachyon.Running
		if i%2 == 1 {
			st = tachyon.Blocked
		}
		samples = append(samples, writer.Sample{ThreadID: 1, Timestamp: uint64(i * 10000), Status: tachyon.StatusOf(st, false),
			Frames: []tachyon.Frame{{Func: "main.main", File: "/m.go", Line: 1}}})
	}
	var buf bytes.Buffer
	if err := Write(&buf, proftest.Open(t, proftest.WriteSamples(t, writer.Options{Interval: 10000}, samples)), Options{}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(leaksScript)) || extract(t, buf.Bytes()).Leaks != nil {
		t.Error("a page without goroutines blocked through the last slice has the leaks view")
	}
}
