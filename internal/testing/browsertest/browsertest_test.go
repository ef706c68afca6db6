package browsertest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
)

// TestRun drives a small page: a script clicks a button and reads the DOM,
// a console error and a network request are reported.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "page.html")
	html := `<!doctype html><title>bt</title><button id="b" onclick="this.textContent='clicked'">go</button>
<script>console.error("boom"); fetch("http://example.invalid/x").catch(() => {});</script>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "shot.png")
	res, errs := browsertest.Run(t, browsertest.FileURL(page), `async (page) => {
		await page.click('#b');
		return { title: await page.title(), text: await page.textContent('#b') };
	}`, shot)
	var got struct{ Title, Text string }
	if err := json.Unmarshal(res, &got); err != nil {
		t.Fatalf("result %s: %v", res, err)
	}
	if got.Title != "bt" || got.Text != "clicked" {
		t.Errorf("result = %+v, want title bt, text clicked", got)
	}
	joined := strings.Join(errs, "\n")
	if !strings.Contains(joined, "boom") || !strings.Contains(joined, "example.invalid") {
		t.Errorf("console errors %q: want the console.error and the blocked request", errs)
	}
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Errorf("screenshot: %v", err)
	}
}
