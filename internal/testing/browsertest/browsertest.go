package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// Timeout bounds one Run: browser start, page load, script and screenshot.
const Timeout = 90 * time.Second

// dir returns this package's directory, which holds run.js and node_modules.
func dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}

// Chromium returns the browser executable Run uses, or an error saying why
// there is none.
func Chromium() (string, error) {
	if p := os.Getenv("TACHYON_CHROMIUM"); p != "" {
		return p, nil
	}
	if _, err := os.Stat("/usr/bin/chromium"); err == nil {
		return "/usr/bin/chromium", nil
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		return "", fmt.Errorf("browsertest: chromium not found (apt-get install -y chromium): %w", err)
	}
	return p, nil
}

// Require returns the browser executable and node, skipping t (failing it
// under CI) when chromium, node or playwright-core is missing.
func Require(t testing.TB) (chromium, node string) {
	t.Helper()
	chromium, err := Chromium()
	if err != nil {
		testutil.Missing(t, "%v", err)
	}
	node = testutil.Tool(t, "node")
	pkg := filepath.Join(dir(), "node_modules", "playwright-core", "package.json")
	if _, err := os.Stat(pkg); err != nil {
		testutil.Missing(t, "playwright-core not installed (npm ci --prefix internal/testing/browsertest): %v", err)
	}
	return chromium, node
}

// FileURL returns the file:// URL of a local path.
func FileURL(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// Run opens url in headless Chromium, runs script and returns what it
// returned, as JSON, with the page's console errors, uncaught exceptions and
// blocked network requests. script is the JavaScript source of an async
// function that receives the playwright Page:
//
//	async (page) => {
//		await page.click('#go');
//		return await page.evaluate(() => document.title);
//	}
//
// If screenshotPath is not empty a full-page PNG is saved there after the
// script. Run fails t if the browser cannot be driven or the script throws,
// and skips it (fails it under CI) when the tools are missing; see Require.
func Run(t testing.TB, url, script, screenshotPath string) (result json.RawMessage, consoleErrors []string) {
	t.Helper()
	chromium, node := Require(t)
	if screenshotPath != "" {
		abs, err := filepath.Abs(screenshotPath)
		if err != nil {
			t.Fatalf("browsertest: %v", err)
		}
		screenshotPath = abs
	}
	job, err := json.Marshal(map[string]any{
		"url":        url,
		"script":     script,
		"screenshot": screenshotPath,
		"executable": chromium,
		"timeoutMs":  Timeout.Milliseconds() / 2,
	})
	if err != nil {
		t.Fatalf("browsertest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir(), "run.js"))
	cmd.Dir = dir()
	cmd.Stdin = bytes.NewReader(job)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("browsertest: %s on %s: %v\n%s", filepath.Base(chromium), url, err, stderr.Bytes())
	}
	var out struct {
		Result        json.RawMessage `json:"result"`
		ConsoleErrors []string        `json:"consoleErrors"`
		Blocked       []string        `json:"blocked"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("browsertest: bad driver output %q: %v", stdout.Bytes(), err)
	}
	for _, u := range out.Blocked {
		out.ConsoleErrors = append(out.ConsoleErrors, "blocked network request: "+u)
	}
	return out.Result, out.ConsoleErrors
}
