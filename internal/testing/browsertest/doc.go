// Package browsertest runs Go tests against pages in headless Chromium.
//
// Run drives a real browser through run.js, a small node script using
// playwright-core (the library without its browser downloads) and Debian's
// chromium. It needs:
//
//	apt-get install -y chromium nodejs npm
//	npm ci --prefix internal/testing/browsertest
//
// When any of these is missing the test is skipped locally and fails under
// CI=true (see testutil.Missing). The browser runs with --no-sandbox and with
// background networking off; every request that is not file:, data:, blob:
// or to a loopback host is aborted and reported as an error, so a passing
// test also proves that the page needs no network.
//
// The executable defaults to /usr/bin/chromium, or chromium on PATH; set
// TACHYON_CHROMIUM to use another.
package browsertest
