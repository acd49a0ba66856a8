package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/serviceworker"
	"github.com/chromedp/chromedp"

	"github.com/attn-dev/attn/internal/agent"
	"github.com/attn-dev/attn/internal/notification"
	"github.com/attn-dev/attn/internal/webpush"
)

// chromiumPath is Debian's Chromium, which the tests drive.
const chromiumPath = "/usr/bin/chromium"

// browserTab is one tab of a headless Chromium with a fresh profile.
type browserTab struct {
	ctx context.Context
}

// startBrowser starts Chromium with a fresh --user-data-dir and opens one
// tab; both end with the test.
func startBrowser(t *testing.T) *browserTab {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("Chromium is not installed at %s: run scripts/test, or apt-get install chromium", chromiumPath)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	// The first action starts the tab, which lives as long as the context
	// it runs with: ctx itself, not a timed child.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return &browserTab{ctx: ctx}
}

// isolated opens a tab in a new browser context of the same browser: its
// own cookies, as another device would have.
func (b *browserTab) isolated(t *testing.T) *browserTab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800)); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	return &browserTab{ctx: ctx}
}

const stepTimeout = 30 * time.Second

func (b *browserTab) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval runs JavaScript in the page (awaiting a promise) and decodes its
// value into out.
func (b *browserTab) eval(t *testing.T, js string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[json.RawMessage](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("evaluate %s: %v", js, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("evaluate %s: decode %s: %v", js, raw, err)
		}
	}
}

// wait polls a JavaScript predicate (awaiting a promise) until it is
// truthy, for at most 20 s; a navigation in between is retried. On
// failure the page's text, and what each explain expression says, are shown.
func (b *browserTab) wait(t *testing.T, what, predicate string, explain ...string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var lastErr error
	for {
		ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("Promise.resolve("+predicate+").then(v => !!v)", chromedp.EvalAwaitPromise))
		cancel()
		if err == nil && ok {
			return
		}
		lastErr = err
		if time.Now().After(deadline) {
			var page string
			b.eval(t, `document.body ? document.body.innerText : ""`, &page)
			for _, js := range explain {
				var more string
				b.eval(t, js, &more)
				page += "\n" + more
			}
			t.Fatalf("waited 20s for %s (%s); last error %v; the page shows:\n%s", what, predicate, lastErr, page)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// text returns the page's visible text.
func (b *browserTab) text(t *testing.T, selector string) string {
	t.Helper()
	var s string
	b.eval(t, fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, selector), &s)
	return s
}

// screenshot saves the viewport at width (a phone at 360, a desktop at
// 1280) as name.png in the screenshot directory.
func (b *browserTab) screenshot(t *testing.T, dir, name string, width int64) {
	t.Helper()
	height, scale := int64(800), 1.0
	if width < 600 {
		height, scale = 780, 2
	}
	b.do(t, chromedp.EmulateViewport(width, height, chromedp.EmulateScale(scale)))
	b.eval(t, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, nil)
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%d.png", name, width))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	b.do(t, chromedp.EmulateViewport(1280, 800))
}

// screenshotDir is $ATTN_SCREENSHOTS, else a fresh temporary directory
// that is kept after the test (its path is logged).
func screenshotDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("ATTN_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	d, err := os.MkdirTemp("", "attn-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

var pairLinkRE = regexp.MustCompile(`https?://\S+/pair#[A-Za-z0-9_-]+`)

// pairLink runs `attn pair` and returns the link it printed.
func (d *daemon) pairLink(t *testing.T) string {
	t.Helper()
	code, out, stderr := d.cli(t, "", "pair")
	link := pairLinkRE.FindString(out)
	if code != 0 || link == "" || !strings.Contains(out, "▀") || !strings.Contains(out, "works once, for 10 minutes") {
		t.Fatalf("attn pair: code %d, stderr %q, output:\n%s", code, stderr, out)
	}
	return link
}

// pair signs the tab in with a fresh `attn pair` link, as a person would:
// open the link, tap the button; it returns the link (now used).
func (b *browserTab) pair(t *testing.T, d *daemon) string {
	t.Helper()
	link := d.pairLink(t)
	b.do(t, chromedp.Navigate(link))
	b.wait(t, "the pairing form", `document.querySelector("#redeem") && !document.querySelector("#redeem").hidden`)
	b.do(t, chromedp.Click(chromedp.CSS("#go")))
	b.wait(t, "the inbox after pairing", `location.pathname === "/" && document.querySelector("#view h1")`)
	return link
}

// httpGet fetches a URL without any credential and returns status and body.
func httpGet(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestWebPairingWorksOnce: an unpaired browser is refused everywhere and
// told how to pair; opening a link does nothing by itself; one tap signs
// the browser in; the same link then fails in another browser, and the
// code cannot be used again over plain HTTP either.
func TestWebPairingWorksOnce(t *testing.T) {
	tm := startTmux(t)
	d := startDaemon(t, t.TempDir(), tm.socket)
	b := startBrowser(t)

	// Refused without a credential: the API with 401 JSON, pages with the
	// pairing page (401), the service worker and modules with 401.
	if st, body := httpGet(t, d.base+"/api/panes"); st != 401 || !strings.Contains(body, `"code":40101`) {
		t.Fatalf("GET /api/panes without credential: %d %s", st, body)
	}
	for _, p := range []string{"/", "/settings", "/panes/x/%253"} {
		if st, body := httpGet(t, d.base+p); st != 401 || !strings.Contains(body, "attn pair") {
			t.Fatalf("GET %s without credential: %d %.200s", p, st, body)
		}
	}
	for _, p := range []string{"/sw.js", "/app/main.js", "/api/events"} {
		if st, _ := httpGet(t, d.base+p); st != 401 {
			t.Fatalf("GET %s without credential: %d, want 401", p, st)
		}
	}
	b.do(t, chromedp.Navigate(d.base+"/"))
	b.wait(t, "the unpaired page", `document.querySelector("#unpaired") && !document.querySelector("#unpaired").hidden`)
	if got := b.text(t, "#unpaired"); !strings.Contains(got, "attn pair") {
		t.Fatalf("unpaired page says %q", got)
	}

	link := d.pairLink(t)
	u, _ := url.Parse(link)
	code := u.Fragment
	// A GET of the link (a preview bot, a prefetch) uses nothing: the code
	// is in the fragment, which is never sent, and the page only acts on a tap.
	if st, _ := httpGet(t, link); st != 200 {
		t.Fatalf("GET pairing page: %d", st)
	}
	if strings.Contains(d.out.String(), code) {
		t.Fatal("the daemon's log contains the pairing code")
	}

	b.do(t, chromedp.Navigate(link))
	b.wait(t, "the pairing form", `!document.querySelector("#redeem").hidden`)
	if got, _ := chromedp.Run(b.ctx, chromedp.Location()); strings.Contains(got, code) {
		t.Fatalf("the code stays in the address bar: %s", got)
	}
	b.do(t, chromedp.Click(chromedp.CSS("#go")))
	b.wait(t, "the inbox after pairing", `location.pathname === "/" && document.querySelector("#view h1")`)
	var session struct {
		Credential struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		} `json:"credential"`
	}
	b.eval(t, `fetch("/api/session").then(r => r.json())`, &session)
	if session.Credential.ID != 1 || session.Credential.Name != "Chrome on Linux" {
		t.Fatalf("session = %+v", session)
	}
	var jsCookie string // HttpOnly: not readable from the page
	b.eval(t, `document.cookie`, &jsCookie)
	if jsCookie != "" {
		t.Fatalf("the credential cookie is readable from JavaScript: %q", jsCookie)
	}

	// The same link in another browser: refused, with what to do.
	other := b.isolated(t)
	other.do(t, chromedp.Navigate(link))
	other.wait(t, "the pairing form", `!document.querySelector("#redeem").hidden`)
	other.do(t, chromedp.Click(chromedp.CSS("#go")))
	other.wait(t, "the refusal", `!document.querySelector("#error").hidden`)
	if got := other.text(t, "#error"); !strings.Contains(got, "already used") || !strings.Contains(got, "attn pair") {
		t.Fatalf("second use says %q", got)
	}
	var st int
	other.eval(t, `fetch("/api/session").then(r => r.status)`, &st)
	if st != 401 {
		t.Fatalf("the second browser's session: %d, want 401", st)
	}
	// And over plain HTTP, with the browser's Origin: still once only.
	req, _ := http.NewRequest("POST", d.base+"/api/pair/redeem", strings.NewReader(`{"code":"`+code+`"}`))
	req.Header.Set("Origin", d.base)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Fatalf("redeem again: %d, want 410", resp.StatusCode)
	}

	// Signing out in Settings: the browser is refused again.
	b.do(t, chromedp.Navigate(d.base+"/settings"))
	b.wait(t, "the browsers list", `document.querySelectorAll(".creds li").length === 1`)
	b.do(t, chromedp.Click(chromedp.CSS(`.creds li[data-credential="1"] button`)))
	b.wait(t, "the unpaired page after signing out", `document.querySelector("#unpaired") && !document.querySelector("#unpaired").hidden`)
	var creds struct {
		Credentials []any `json:"credentials"`
	}
	if st := postJSON(t, "GET", d.base+"/api/credentials", d.token, nil, &creds); st != 200 || len(creds.Credentials) != 0 {
		t.Fatalf("credentials after signing out: %d %+v", st, creds)
	}
}

// TestWebApp drives the app in Chromium against the daemon, a real tmux
// pane with a blocked agent, and web-push-testing: the inbox, the card,
// settings that persist, the service worker's notifications and taps,
// toasts and presence; and takes the screenshots.
func TestWebApp(t *testing.T) {
	ps := startPushService(t)
	tm := startTmux(t)
	pane := tm.newWindow(t, "api", agentCommand(t, "claude", "✳ Claude Code", fixture(t, "claude-bash-permission.txt"))...)
	tm.newWindow(t, "docs", "bash", "-c", "printf 'docs: nothing running\\n'; exec sleep 3600")
	d := startDaemon(t, t.TempDir(), tm.socket)
	// The watcher reads panes only while a device is registered: this
	// browser's device is a web-push-testing subscription (headless
	// Chromium has no push service of its own).
	sub := ps.subscribe(t, d.vapidKey(t))
	dev := d.register(t, sub, "phone")
	// No window is open yet: the blocked agent is pushed, once.
	if m := decode(t, ps.waitMessages(t, sub.ClientHash, 1, 20*time.Second)[0]); m.Title != "api" || m.Kind != "blocked" {
		t.Fatalf("first push = %+v", m)
	}
	shots := screenshotDir(t)
	t.Logf("screenshots in %s", shots)

	b := startBrowser(t)
	b.pair(t, d)
	// Link the browser to its device, as the app does after subscribing.
	var linked int
	b.eval(t, fmt.Sprintf(`fetch("/api/session", {method: "PATCH", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({device_id: %d})}).then(r => r.status)`, dev), &linked)
	if linked != 200 {
		t.Fatalf("PATCH /api/session: %d", linked)
	}
	b.do(t, chromedp.Navigate(d.base+"/"))

	// The inbox: the blocked agent drawn in the tmux pane, live.
	b.wait(t, "the blocked agent in the inbox", `document.querySelector(".cards .card.blocked .prompt")`)
	var card struct {
		Name, Meta, Prompt string
		Options            []string
		Others             []string
	}
	b.eval(t, `(() => { const c = document.querySelector(".cards .card.blocked");
		return {Name: c.querySelector(".name").innerText, Meta: c.querySelector(".meta").innerText,
			Prompt: c.querySelector(".prompt").innerText, Options: [...c.querySelectorAll(".opts li")].map(l => l.innerText),
			Others: [...document.querySelectorAll(".rows .row .name")].map(n => n.innerText)}; })()`, &card)
	var panes struct {
		Panes []struct {
			Host        string `json:"host"`
			Pane        string `json:"pane"`
			Status      string `json:"status"`
			Fingerprint string `json:"fingerprint"`
		} `json:"panes"`
	}
	postJSON(t, "GET", d.base+"/api/panes", d.token, nil, &panes)
	host := panes.Panes[0].Host
	if card.Name != "api" || card.Meta != "Claude Code · "+host+" · "+pane || card.Prompt != "Do you want to proceed?" ||
		len(card.Options) != 3 || card.Options[0] != "Yes" || len(card.Others) != 1 || card.Others[0] != "docs" {
		t.Fatalf("inbox card = %+v", card)
	}
	b.wait(t, "the live stream", `document.documentElement.dataset.live === "1"`)
	// Installable: the manifest parses, and Chromium finds nothing missing.
	manifest, err := chromedp.Call(b.ctx, page.GetAppManifest, page.GetAppManifestParams{})
	if err != nil || len(manifest.Errors) != 0 || manifest.URL != d.base+"/manifest.webmanifest" {
		t.Fatalf("manifest: %+v, %v", manifest, err)
	}
	installable, err := chromedp.Call(b.ctx, page.GetInstallabilityErrors, cdp.Empty{})
	if err != nil || len(installable.InstallabilityErrors) != 0 {
		for _, e := range installable.InstallabilityErrors {
			t.Errorf("installability: %s", e.ErrorID)
		}
		t.Fatalf("installability errors: %v", err)
	}
	b.screenshot(t, shots, "inbox", 360)
	b.screenshot(t, shots, "inbox", 1280)

	// The card: the question, its options as buttons, the screen.
	b.do(t, chromedp.Click(chromedp.CSS(".cards .card.blocked a")))
	b.wait(t, "the card", `document.querySelector(".card-page .answers") && document.querySelector(".screen").innerText.includes("Bash command")`)
	var cardPage struct {
		Path     string
		Title    string
		Buttons  []string
		Disabled []bool
		Nonce    bool // the reply path offers an answer from the card
		Composer bool
		Banner   bool
	}
	b.eval(t, `(async () => { const s = await fetch("/api/session").then(r => r.json());
		const p = await fetch("/api/panes/" + location.pathname.split("/").slice(2).join("/")).then(r => r.json());
		return {Path: location.pathname, Title: document.querySelector("#card-h").innerText,
		Buttons: [...document.querySelectorAll(".answers .answer")].map(b => b.innerText.replace(/\s+/g, " ")),
		Disabled: [...document.querySelectorAll(".answers .answer")].map(b => b.disabled),
		Nonce: s.answer && !!p.nonce, Composer: document.querySelector(".composer textarea").disabled,
		Banner: !!document.querySelector(".banner")}; })()`, &cardPage)
	wantPath := "/panes/" + url.PathEscape(host) + "/" + url.PathEscape(pane)
	if cardPage.Path != wantPath || cardPage.Title != "api" || len(cardPage.Buttons) != 3 || cardPage.Buttons[0] != "1 Yes" ||
		cardPage.Banner || !cardPage.Composer {
		t.Fatalf("card = %+v, want path %s", cardPage, wantPath)
	}
	for _, dis := range cardPage.Disabled {
		if dis == cardPage.Nonce {
			t.Fatalf("answer buttons disabled = %v, with an answer nonce offered: %v", cardPage.Disabled, cardPage.Nonce)
		}
	}
	b.wait(t, "presence focused on the pane", fmt.Sprintf(`document.documentElement.dataset.presence === "visible %s/%s"`, host, pane))
	b.screenshot(t, shots, "card", 360)
	b.screenshot(t, shots, "card", 1280)

	// Settings: the name and the kind choices persist on the server.
	b.do(t, chromedp.Click(chromedp.CSS(`a[data-nav="settings"]`)))
	b.wait(t, "settings", `document.querySelector(".kinds") && !document.querySelector(".kinds").disabled && document.querySelectorAll(".devices li").length === 1`)
	b.eval(t, `document.querySelector("#dev-name").select()`, nil)
	b.do(t,
		chromedp.SendKeys(chromedp.CSS("#dev-name"), "pixel"),
		chromedp.Click(chromedp.CSS(".name-row button")),
	)
	b.wait(t, "the name saved", `[...document.querySelectorAll(".devices strong")].some(s => s.innerText.startsWith("pixel"))`)
	b.do(t, chromedp.Click(chromedp.CSS(`.kinds input[name="finished"]`)))
	b.wait(t, "finished on", `document.querySelector('.kinds input[name="finished"]').checked && !document.querySelector(".kinds").disabled`)
	b.do(t, chromedp.Click(chromedp.CSS(`.kinds input[name="error"]`)))
	b.wait(t, "errors off", `!document.querySelector('.kinds input[name="error"]').checked && !document.querySelector(".kinds").disabled`)
	var devs struct {
		Devices []struct {
			ID    int64           `json:"device_id"`
			Name  string          `json:"name"`
			Kinds map[string]bool `json:"kinds"`
		} `json:"devices"`
	}
	postJSON(t, "GET", d.base+"/api/devices", d.token, nil, &devs)
	if len(devs.Devices) != 1 || devs.Devices[0].Name != "pixel" ||
		fmt.Sprint(devs.Devices[0].Kinds) != "map[asked:true blocked:true error:false finished:true]" {
		t.Fatalf("devices after settings = %+v", devs)
	}
	b.screenshot(t, shots, "settings", 360)
	b.screenshot(t, shots, "settings", 1280)
	// A test notification from Settings goes through the same path: this
	// window is visible, so it arrives as a toast, not a push.
	b.do(t, chromedp.Click(chromedp.CSS("#test")))
	b.wait(t, "the test note", `document.querySelector("#test-note")`)
	b.wait(t, "the test toast", `[...document.querySelectorAll(".toast strong")].some(s => s.innerText === "attn test")`)
	b.screenshot(t, shots, "toast", 360)
	if got := ps.messages(t, sub.ClientHash); len(got) != 1 {
		t.Fatalf("pushes while the window is visible: %q, want only the first", got)
	}
	b.eval(t, `document.querySelectorAll(".toast").forEach(t => t.remove())`, nil)

	// Unticking a device removes it: a second device, then untick it.
	sub2 := ps.subscribe(t, d.vapidKey(t))
	dev2 := d.register(t, sub2, "old tablet")
	b.do(t, chromedp.Navigate(d.base+"/settings"))
	b.wait(t, "two devices", `document.querySelectorAll(".devices li").length === 2`)
	b.do(t, chromedp.Click(chromedp.CSS(fmt.Sprintf(`.devices li[data-device="%d"] input`, dev2))))
	b.wait(t, "one device", `document.querySelectorAll(".devices li").length === 1`)
	postJSON(t, "GET", d.base+"/api/devices", d.token, nil, &devs)
	if len(devs.Devices) != 1 || devs.Devices[0].ID != dev {
		t.Fatalf("devices after unticking = %+v", devs)
	}

	t.Run("toast and presence", func(t *testing.T) {
		b.do(t, chromedp.Navigate(d.base+"/"))
		b.wait(t, "presence", `document.documentElement.dataset.presence === "visible " && document.documentElement.dataset.live === "1"`)
		code, out, stderr := d.cli(t, "", "notify", "--title", "build", "tests passed")
		if code != 0 || out != "sent \"build\" via inapp\n" {
			t.Fatalf("notify while visible: code %d, stdout %q, stderr %q", code, out, stderr)
		}
		b.wait(t, "the toast", `[...document.querySelectorAll(".toast")].some(t => t.innerText.includes("build") && t.innerText.includes("tests passed"))`)
		if got := ps.messages(t, sub.ClientHash); len(got) != 1 {
			t.Fatalf("a visible window's device got an OS push too: %q", got)
		}
		// The window goes away: its device is pushed again.
		closed := regexp.MustCompile(`msg="web app window closed"`)
		n := d.out.count(closed)
		b.do(t, chromedp.Navigate("about:blank"))
		d.out.waitCount(t, closed, n+1, 10*time.Second)
		code, out, stderr = d.cli(t, "", "notify", "--title", "build", "tests failed")
		if code != 0 || out != "sent \"build\" via webpush\n" {
			t.Fatalf("notify after the window closed: code %d, stdout %q, stderr %q", code, out, stderr)
		}
		if m := decode(t, ps.waitMessages(t, sub.ClientHash, 2, 10*time.Second)[1]); m.Body != "tests failed" {
			t.Fatalf("push = %+v", m)
		}
	})

	t.Run("service worker", func(t *testing.T) {
		if _, err := chromedp.CallBrowser(b.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: d.base,
		}); err != nil {
			t.Fatal(err)
		}
		// Chromium's own push service is out of reach here: the app's
		// subscribe at start fails at once instead of waiting on it.
		if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fakePushService}); err != nil {
			t.Fatal(err)
		}
		regs := chromedp.Events(b.ctx, serviceworker.WorkerRegistrationUpdated)
		var swLog []string // the worker's versions and errors, shown on failure
		var swLogMu sync.Mutex
		chromedp.Listen(b.ctx, func(ev any) {
			swLogMu.Lock()
			defer swLogMu.Unlock()
			switch e := ev.(type) {
			case *serviceworker.EventWorkerVersionUpdated:
				for _, v := range e.Versions {
					swLog = append(swLog, fmt.Sprintf("version %s %s %s", v.VersionID, v.Status, v.RunningStatus))
				}
			case *serviceworker.EventWorkerErrorReported:
				swLog = append(swLog, "error "+e.ErrorMessage.ErrorMessage)
			}
		})
		defer func() {
			if t.Failed() {
				swLogMu.Lock()
				t.Logf("service worker events:\n%s", strings.Join(swLog, "\n"))
				swLogMu.Unlock()
			}
		}()
		if _, err := chromedp.Call(b.ctx, serviceworker.Enable, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
		b.do(t, chromedp.Navigate(d.base+"/settings"))
		// The app registers its worker at start, which checks for an update
		// in the background: wait for that, so no push lands mid-update.
		settled := func() {
			t.Helper()
			b.wait(t, "the app started", `document.documentElement.dataset.live === "1"`)
			b.wait(t, "the service worker", `navigator.serviceWorker.ready.then(r => r.update()).then(() => navigator.serviceWorker.ready).then(r => r.active && !r.installing && !r.waiting)`)
		}
		settled()
		var regID serviceworker.RegistrationID
		deadline := time.Now().Add(20 * time.Second)
		for ev, err := range regs {
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range ev.Registrations {
				if r.ScopeURL == d.base+"/" && !r.IsDeleted {
					regID = r.RegistrationID
				}
			}
			if regID != "" || time.Now().After(deadline) {
				break
			}
		}
		if regID == "" {
			t.Fatal("no service worker registration for the app's scope")
		}

		// A blocked notification for the tmux pane, as attn makes it,
		// delivered by CDP instead of a push service.
		var live struct {
			Fingerprint string `json:"fingerprint"`
		}
		postJSON(t, "GET", d.base+"/api/panes/"+url.PathEscape(host)+"/"+url.PathEscape(pane), d.token, nil, &live)
		n := notification.Notification{Kind: notification.KindBlocked, Title: "api", Body: "Do you want to proceed?\nclaude on " + host,
			Tag: "block:" + host + "/" + pane, Renotify: true, Host: host, Pane: pane, Agent: "claude", Fingerprint: live.Fingerprint,
			Question: &agent.Question{Prompt: "Do you want to proceed?", Options: []string{"Yes", "Yes, and don't ask again", "No"}},
			Nonce:    "nonce-1", Actions: []notification.Action{{Label: "Yes", OptionIndex: 0}, {Label: "Yes, and don't ask again", OptionIndex: 1}},
			Created: time.Now()}
		payload, err := n.Payload(4096)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := chromedp.Call(b.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: d.base, RegistrationID: regID, Data: string(payload)}); err != nil {
			t.Fatal(err)
		}
		type shown struct {
			Title, Body, Tag string
			Actions          []string
			URL              string
		}
		getShown := `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.map(n =>
			({Title: n.title, Body: n.body, Tag: n.tag, Actions: n.actions.map(a => a.title), URL: n.data.url})))`
		b.wait(t, "the notification", `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.length === 1)`,
			`navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => JSON.stringify(ns.map(n => [n.title, n.tag])) + " permission " + Notification.permission)`)
		var got []shown
		b.eval(t, getShown, &got)
		want := shown{Title: "api", Body: "Do you want to proceed?\nclaude on " + host, Tag: "block:" + host + "/" + pane,
			Actions: []string{"Yes", "Yes, and don't ask again"}, URL: wantPath}
		if len(got) != 1 || fmt.Sprint(got[0]) != fmt.Sprint(want) {
			t.Fatalf("notifications = %+v\nwant %+v", got, want)
		}

		// A tap navigates this open window (now on Settings) to the card.
		tap := func(tag string) {
			t.Helper()
			sw := b.serviceWorker(t, d.base)
			ctx, cancel := context.WithTimeout(sw, stepTimeout)
			defer cancel()
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`self.registration.getNotifications({tag: %q})
				.then(ns => handleClick(ns[0], "")).then(() => true)`, tag), chromedp.EvalAwaitPromise)); err != nil {
				t.Fatalf("tap: %v", err)
			}
		}
		tap(want.Tag)
		b.wait(t, "the card after the tap", fmt.Sprintf(`location.pathname === %q && document.querySelector(".card-page .answers")`, wantPath))
		if b.text(t, ".banner") != "" {
			t.Fatalf("a live wait's card says %q", b.text(t, ".banner"))
		}

		// A notification whose wait has cleared (another fingerprint):
		// the card says it was already answered.
		b.do(t, chromedp.Navigate(d.base+"/settings"))
		b.wait(t, "settings", `document.querySelector(".kinds")`)
		settled()
		n.Fingerprint, n.Tag = "0123456789abcdef0123456789abcdef", "block:"+host+"/"+pane+"-old"
		payload, _ = n.Payload(4096)
		if _, err := chromedp.Call(b.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: d.base, RegistrationID: regID, Data: string(payload)}); err != nil {
			t.Fatal(err)
		}
		b.wait(t, "the second notification", `navigator.serviceWorker.ready.then(r => r.getNotifications({tag: `+fmt.Sprintf("%q", n.Tag)+`})).then(ns => ns.length === 1)`)
		tap(n.Tag)
		b.wait(t, "the answered card", `document.querySelector(".banner.ok")`)
		if got := b.text(t, ".banner.ok"); got != "Already answered: this question is no longer waiting." {
			t.Fatalf("banner = %q", got)
		}

		// A push with no JSON still shows a notification.
		if _, err := chromedp.Call(b.ctx, serviceworker.DeliverPushMessage, serviceworker.DeliverPushMessageParams{
			Origin: d.base, RegistrationID: regID, Data: "plain words"}); err != nil {
			t.Fatal(err)
		}
		b.wait(t, "the plain notification", `navigator.serviceWorker.ready.then(r => r.getNotifications()).then(ns => ns.some(n => n.title === "attn" && n.body === "plain words"))`)
	})

	// Answering from the card: the reply path types the option into the
	// pane; the card and the inbox follow the pane live, without reload.
	t.Run("answer from the card", func(t *testing.T) {
		b.do(t, chromedp.Navigate(d.base+"/"))
		b.wait(t, "the blocked card", `document.querySelector(".cards .card.blocked a")`)
		b.do(t, chromedp.Click(chromedp.CSS(".cards .card.blocked a")))
		b.wait(t, "an answer button", `document.querySelector(".answers .answer") && !document.querySelector(".answers .answer").disabled`)
		b.eval(t, `window.__noReload = true`, nil)
		b.do(t, chromedp.Click(chromedp.CSS(".answers .answer")))
		tm.waitScreen(t, pane, "Deliberating")
		b.wait(t, "the card after the answer", `document.querySelector(".banner.ok") && document.querySelector(".pill.working")`)
		if got := b.text(t, ".banner.ok"); got != "Sent “Yes”." {
			t.Fatalf("banner = %q", got)
		}
		b.do(t, chromedp.Click(chromedp.CSS(".back")))
		b.wait(t, "the inbox with nothing waiting", `document.querySelector(".waiting .empty") && window.__noReload === true`)
		if h, empty := b.text(t, ".waiting h1"), b.text(t, ".waiting .empty"); h != "Waiting on you" || empty != "Nothing is waiting on you." {
			t.Fatalf("inbox says %q, %q", h, empty)
		}
	})

	// The service worker is served uncached.
	req, _ := http.NewRequest("GET", d.base+"/sw.js", nil)
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") {
		t.Fatalf("GET /sw.js: %d %v", resp.StatusCode, resp.Header)
	}
}

// serviceWorker attaches to the app's service worker and returns a context
// whose actions run in its global scope.
func (b *browserTab) serviceWorker(t *testing.T, origin string) context.Context {
	t.Helper()
	infos, err := chromedp.Targets(b.ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range infos {
		if ti.Type == "service_worker" && ti.URL == origin+"/sw.js" {
			ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(ti.TargetID))
			t.Cleanup(cancel)
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("true")); err != nil {
				t.Fatalf("attach to the service worker: %v", err)
			}
			return ctx
		}
	}
	t.Fatalf("no service worker target for %s/sw.js among %d targets", origin, len(infos))
	return nil
}

// fakePushService stands in for the browser's own push service, which
// headless Chromium cannot reach here: PushManager's getSubscription and
// subscribe hand out subscriptions that the test made with web-push-testing
// (localStorage "fakePush" is the current one, "fakePushNext" the one the
// next subscribe returns). It also records the app's API calls.
const fakePushService = `(() => {
  const b64 = (buf) => btoa(String.fromCharCode(...new Uint8Array(buf)));
  const current = () => JSON.parse(localStorage.getItem("fakePush") || "null");
  const make = (s) => s && {
    endpoint: s.endpoint,
    options: { applicationServerKey: Uint8Array.from(atob(s.appKey), (c) => c.charCodeAt(0)).buffer },
    toJSON: () => ({ endpoint: s.endpoint, expirationTime: null, keys: s.keys }),
    unsubscribe: async () => { localStorage.removeItem("fakePush"); return true; },
  };
  PushManager.prototype.getSubscription = async function () { return make(current()); };
  PushManager.prototype.subscribe = async function (opts) {
    const next = JSON.parse(localStorage.getItem("fakePushNext") || "null");
    if (!next) throw new Error("no push service");
    localStorage.setItem("fakePush", JSON.stringify({ ...next, appKey: b64(opts.applicationServerKey) }));
    localStorage.removeItem("fakePushNext");
    return make(current());
  };
  window.__calls = [];
  const f = window.fetch;
  window.fetch = function (url, init) {
    window.__calls.push(((init && init.method) || "GET") + " " + url);
    return f.apply(this, arguments);
  };
})()`

// TestWebSubscription: the app re-sends its subscription at every start,
// remakes it when it was made with another VAPID key, and Settings turns
// notifications off and on (the permission asked from the tap).
func TestWebSubscription(t *testing.T) {
	ps := startPushService(t)
	tm := startTmux(t)
	d := startDaemon(t, t.TempDir(), tm.socket)
	b := startBrowser(t)
	b.pair(t, d)
	if _, err := chromedp.Call(b.ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: fakePushService}); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.CallBrowser(b.ctx, browser.SetPermission, browser.SetPermissionParams{
		Permission: &browser.PermissionDescriptor{Name: "notifications"}, Setting: browser.PermissionSettingGranted, Origin: d.base,
	}); err != nil {
		t.Fatal(err)
	}
	// The browser holds a subscription made with an old key.
	old, err := webpush.GenerateVAPIDKey()
	if err != nil {
		t.Fatal(err)
	}
	oldSub := ps.subscribe(t, old.PublicKeyBase64())
	oldKey, _ := base64.RawURLEncoding.DecodeString(old.PublicKeyBase64())
	newSub := ps.subscribe(t, d.vapidKey(t))
	setSubs := func(current *subscription, currentKey []byte, next *subscription) {
		t.Helper()
		js := `localStorage.clear();`
		if current != nil {
			v, _ := json.Marshal(map[string]any{"endpoint": current.Endpoint, "keys": current.Keys, "appKey": base64.StdEncoding.EncodeToString(currentKey)})
			js += fmt.Sprintf(`localStorage.setItem("fakePush", %q);`, v)
		}
		if next != nil {
			v, _ := json.Marshal(map[string]any{"endpoint": next.Endpoint, "keys": next.Keys})
			js += fmt.Sprintf(`localStorage.setItem("fakePushNext", %q);`, v)
		}
		b.eval(t, js+"true", nil)
	}
	type device struct {
		ID          int64  `json:"device_id"`
		Name        string `json:"name"`
		PushService string `json:"push_service"`
	}
	devices := func() []device {
		var out struct {
			Devices []device `json:"devices"`
		}
		postJSON(t, "GET", d.base+"/api/devices", d.token, nil, &out)
		return out.Devices
	}
	session := func() (deviceID int64) {
		var s struct {
			Credential struct {
				DeviceID int64 `json:"device_id"`
			} `json:"credential"`
		}
		b.eval(t, `fetch("/api/session").then(r => r.json())`, &s)
		return s.Credential.DeviceID
	}
	setSubs(&oldSub, oldKey, &newSub)
	b.do(t, chromedp.Navigate(d.base+"/settings"))
	b.wait(t, "the new subscription", `JSON.parse(localStorage.getItem("fakePush") || "{}").endpoint === `+fmt.Sprintf("%q", newSub.Endpoint))
	b.wait(t, "notifications on", `document.querySelector("#push-status") && document.querySelector("#push-status").innerText.startsWith("On")`)
	devs := devices()
	if len(devs) != 1 || devs[0].Name != "Chrome on Linux" || session() != devs[0].ID {
		t.Fatalf("devices = %+v, session device %d", devs, session())
	}
	var calls []string
	b.eval(t, `window.__calls`, &calls)
	if !slices.Contains(calls, "DELETE /api/push/subscribe") || !slices.Contains(calls, "POST /api/push/subscribe") {
		t.Fatalf("calls at start = %q", calls)
	}

	// The next start re-sends the same subscription: no new device.
	b.do(t, chromedp.Navigate(d.base+"/"))
	b.wait(t, "the subscription re-sent", `window.__calls.includes("POST /api/push/subscribe")`)
	b.wait(t, "the stream for the device", `document.documentElement.dataset.live === "1"`)
	b.eval(t, `window.__calls`, &calls)
	if slices.Contains(calls, "DELETE /api/push/subscribe") || len(devices()) != 1 {
		t.Fatalf("calls at the second start = %q, devices %+v", calls, devices())
	}

	// Settings: turn off, then on again with a tap.
	b.do(t, chromedp.Navigate(d.base+"/settings"))
	b.wait(t, "the off button", `document.querySelector("#push-off") && !document.querySelector("#push-off").disabled`)
	b.do(t, chromedp.Click(chromedp.CSS("#push-off")))
	b.wait(t, "notifications off", `document.querySelector("#push-on") && document.querySelector("#push-status").innerText.startsWith("Off")`)
	if devs := devices(); len(devs) != 0 || session() != 0 {
		t.Fatalf("after turning off: devices %+v, session device %d", devs, session())
	}
	again := ps.subscribe(t, d.vapidKey(t))
	setSubs(nil, nil, &again)
	b.do(t, chromedp.Click(chromedp.CSS("#push-on")))
	b.wait(t, "notifications on again", `document.querySelector("#push-off") && document.querySelector("#push-status").innerText.startsWith("On")`)
	if devs := devices(); len(devs) != 1 || session() != devs[0].ID {
		t.Fatalf("after turning on: devices %+v, session device %d", devs, session())
	}
	// The device gets pushes once no window is open.
	b.do(t, chromedp.Navigate("about:blank"))
	d.out.waitCount(t, regexp.MustCompile(`msg="web app window closed" device=[1-9]`), 1, 10*time.Second)
	if code, out, stderr := d.cli(t, "", "notify", "hello phone"); code != 0 || out != "sent \"attn\" via webpush\n" {
		t.Fatalf("notify: code %d, stdout %q, stderr %q", code, out, stderr)
	}
	if m := decode(t, ps.waitMessages(t, again.ClientHash, 1, 10*time.Second)[0]); m.Body != "hello phone" {
		t.Fatalf("push = %+v", m)
	}
}

// TestServeTLS: with a certificate attn serves HTTPS (and may then listen
// beyond loopback); the pairing link uses the public URL and the cookie is
// Secure with the __Host- prefix. Without TLS, beyond loopback is refused.
func TestServeTLS(t *testing.T) {
	dir := t.TempDir()
	certPEM, keyPEM := selfSignedCert(t, "localhost")
	writeFile(t, filepath.Join(dir, "cert.pem"), string(certPEM))
	writeFile(t, filepath.Join(dir, "key.pem"), string(keyPEM))
	tm := startTmux(t)
	state := t.TempDir()
	p := start(t, nil, attnBinary(t), "serve", "--listen", "127.0.0.1:0", "--state-dir", state, "--tmux-socket", tm.socket,
		"--push-contact", "mailto:e2e@example.org", "--tls-cert", filepath.Join(dir, "cert.pem"), "--tls-key", filepath.Join(dir, "key.pem"),
		"--public-url", "https://localhost")
	re := regexp.MustCompile(`msg="attn serving" listen=(https://\S+)`)
	base := re.FindStringSubmatch(p.out.waitCount(t, re, 1, 20*time.Second))[1]
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}}}
	tok, _ := os.ReadFile(filepath.Join(state, "api-token"))
	mint, _ := http.NewRequest("POST", base+"/api/pair", strings.NewReader("{}"))
	mint.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(tok)))
	resp, err := client.Do(mint)
	if err != nil {
		t.Fatal(err)
	}
	var link PairLink
	json.NewDecoder(resp.Body).Decode(&link)
	resp.Body.Close()
	if resp.StatusCode != 201 || !strings.HasPrefix(link.URL, "https://localhost/pair#") {
		t.Fatalf("pair over TLS: %d %+v", resp.StatusCode, link)
	}
	u, _ := url.Parse(link.URL)
	redeem, _ := http.NewRequest("POST", base+"/api/pair/redeem", strings.NewReader(`{"code":"`+u.Fragment+`"}`))
	redeem.Header.Set("Origin", "https://localhost")
	redeem.Header.Set("Content-Type", "application/json")
	resp, err = client.Do(redeem)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Cookies()
	if resp.StatusCode != 201 || len(cookies) != 1 || cookies[0].Name != "__Host-attn" || !cookies[0].Secure || !cookies[0].HttpOnly {
		t.Fatalf("redeem over TLS: %d %+v", resp.StatusCode, cookies)
	}

	// Beyond loopback without TLS: refused at start, saying what to do.
	code, _, stderr := (&daemon{stateDir: t.TempDir()}).cli(t, "", "serve", "--listen", "0.0.0.0:0", "--state-dir", t.TempDir(),
		"--public-url", "https://laptop.example.ts.net")
	if code != 1 || !strings.Contains(stderr, "--tls-cert and --tls-key, or put a TLS-terminating proxy in front and pass --tls-proxy") {
		t.Fatalf("serve beyond loopback without TLS: code %d, stderr %q", code, stderr)
	}
}

// PairLink is the answer of POST /api/pair.
type PairLink struct {
	URL string `json:"url"`
}

// selfSignedCert returns a PEM certificate for host and its PEM key.
func selfSignedCert(t *testing.T, host string) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true, IsCA: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})
}
