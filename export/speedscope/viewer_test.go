package speedscope

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/browsertest"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/speedscopetest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestSpeedscopeViewer opens exports in the real speedscope (npm 1.25)
// in headless Chromium, served from 127.0.0.1 and loaded through the
// #profileURL= hash, and checks that the page names the file and the
// busiest goroutine's profile, lists every profile and logs no error. A
// labelled file exported with Labels shows its label frames in the
// sandwich view's table. A screenshot lands in the test's output
// directory.
func TestSpeedscopeViewer(t *testing.T) {
	if testing.Short() {
		t.Skip("drives speedscope in headless Chromium")
	}
	dist := speedscopetest.Dist(t)
	browsertest.Require(t)
	inputs := []string{testutil.Vectors(t, "tachyon", "threads_8.bin")}
	demo, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin"))
	inputs = append(inputs, demo...)
	labelled := filepath.Join(t.TempDir(), "labelled.bin")
	if err := os.WriteFile(labelled, proftest.LabelledBytes(t, proftest.LabelledSpans), 0o644); err != nil {
		t.Fatal(err)
	}
	inputs = append(inputs, labelled)
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			var b bytes.Buffer
			const name = "tachyon-viewer-test"
			var sandwich []string // text the sandwich view must show
			if in == labelled {
				sandwich = []string{"http.route=/api/cpu", "http.method=GET", "main.hash"}
			}
			if err := Write(&b, proftest.Open(t, in), Options{Top: 3, Name: name, Labels: in == labelled}); err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Profiles []struct {
					Name string `json:"name"`
				} `json:"profiles"`
			}
			if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.Profiles) == 0 {
				t.Fatalf("export: %v, %d profiles", err, len(doc.Profiles))
			}
			mux := http.NewServeMux()
			mux.Handle("/", http.FileServer(http.Dir(dist)))
			mux.HandleFunc("/profile.json", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.Write(b.Bytes())
			})
			srv := httptest.NewServer(mux) // listens on 127.0.0.1
			defer srv.Close()
			page := srv.URL + "/index.html#profileURL=" + url.QueryEscape(srv.URL+"/profile.json")
			// Kept with go test -artifacts (under -outputdir).
			shot := filepath.Join(t.ArtifactDir(), "speedscope.png")
			script := `async (page) => {
				await page.waitForFunction(() => document.title.includes(` + strconv.Quote(name) + `), null, {timeout: 30000});
				await page.waitForTimeout(500);
				const state = await page.evaluate(() => ({
					title: document.title,
					text: document.body.innerText,
					canvases: document.querySelectorAll('canvas').length,
				}));
				// Open the profile switcher: it lists every profile.
				await page.getByText(` + strconv.Quote(doc.Profiles[0].Name) + `).filter({visible: true}).first().click({timeout: 10000});
				await page.waitForTimeout(500);
				state.switcher = await page.evaluate(() => document.body.innerText);
				await page.keyboard.press('Escape');
				if (` + strconv.FormatBool(sandwich != nil) + `) {
					await page.getByText('Sandwich').filter({visible: true}).first().click({timeout: 10000});
					await page.waitForTimeout(500);
					state.sandwich = await page.evaluate(() => document.body.innerText);
				}
				return state;
			}`
			res, consoleErrors := browsertest.Run(t, page, script, shot)
			t.Logf("screenshot: %s", shot)
			if len(consoleErrors) > 0 {
				t.Errorf("console errors: %q", consoleErrors)
			}
			var got struct {
				Title    string `json:"title"`
				Text     string `json:"text"`
				Canvases int    `json:"canvases"`
				Switcher string `json:"switcher"`
				Sandwich string `json:"sandwich"`
			}
			if err := json.Unmarshal(res, &got); err != nil {
				t.Fatal(err)
			}
			t.Logf("title %q", got.Title)
			first := doc.Profiles[0].Name
			want := first // speedscope numbers profiles only when there are several
			if len(doc.Profiles) > 1 {
				want += " (1/" + strconv.Itoa(len(doc.Profiles)) + ")"
			}
			if !strings.Contains(got.Text, want) {
				t.Errorf("page does not show the active profile %q:\ntitle %q\n%s", want, got.Title, got.Text)
			}
			for _, p := range doc.Profiles {
				if !strings.Contains(got.Switcher, p.Name) {
					t.Errorf("profile switcher does not list %q:\n%s", p.Name, got.Switcher)
				}
			}
			if got.Canvases == 0 {
				t.Errorf("no flame chart canvas")
			}
			for _, w := range sandwich {
				if !strings.Contains(got.Sandwich, w) {
					t.Errorf("the sandwich view does not list %q:\n%s", w, got.Sandwich)
				}
			}
		})
	}
}
