package report_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/report"
)

// timelineFinding is a failing history with a burst of three overlapping
// calls, a later retry, a call with no answer and a planned fault.
func timelineFinding() report.JUnitFailure {
	c := func(tenant, key string, v int) model.Call { return model.Call{Tenant: tenant, Key: key, Variant: v} }
	faulty := c("B", "k2", 0)
	faulty.Fault = "lose-reply"
	ms := int64(time.Millisecond)
	plan := model.Plan{Steps: []model.Step{
		{Kind: model.StepBurst, Calls: []model.Call{c("A", "k1", 0), c("A", "k1", 0), c("A", "k1", 1)}},
		{Kind: model.StepCall, Calls: []model.Call{c("A", "k1", 0)}},
		{Kind: model.StepCall, Calls: []model.Call{faulty}},
	}}
	h := model.History{Ops: []model.Op{
		{Step: 0, Call: plan.Steps[0].Calls[0], Body: []byte(`{"subject":"x"}`), Start: 10 * ms, End: 14 * ms, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "7"}},
		{Step: 0, Call: plan.Steps[0].Calls[1], Body: []byte(`{"subject":"x"}`), Start: 10 * ms, End: 15 * ms, Out: model.Outcome{Kind: model.OK, Status: 201, ID: "8"}},
		{Step: 0, Call: plan.Steps[0].Calls[2], Body: []byte(`{"subject":"x #1"}`), Start: 11 * ms, End: 13 * ms, Out: model.Outcome{Kind: model.Conflict, Status: 422}},
		{Step: 1, Call: plan.Steps[1].Calls[0], Body: []byte(`{"subject":"x"}`), Start: 16 * ms, End: 17 * ms, Out: model.Outcome{Kind: model.OK, Status: 200, ID: "7"}},
		{Step: 2, Call: plan.Steps[2].Calls[0], Body: []byte(`{"subject":"<b>&"}`), Start: 18 * ms, End: 28 * ms, Out: model.Outcome{Kind: model.Unknown, Err: "timeout"}},
	}}
	vs := []checks.Violation{{Check: checks.DuplicateEffect, Message: "IDEM-001 duplicate effect: an action has more than 1 row(s) in tickets",
		Detail: "action A/k1: 2 row(s) in tickets", Action: model.Action{Tenant: "A", Key: "k1"}}}
	return report.JUnitFailure{Plan: plan, History: h, Violations: vs}
}

var (
	callElem  = regexp.MustCompile(`<g class="call [^"]*" data-label="([^"]*)" data-answer="([^"]*)"`)
	laneLabel = regexp.MustCompile(`<text class="lanelabel( blamed)?" [^>]*>([^<]*)</text>`)
)

// The page holds one bar per call, labelled with the call and its answer,
// one lane per action (the one a violation names in red), and escapes
// what the service sent.
func TestWriteTimelineHTML(t *testing.T) {
	f := timelineFinding()
	var b bytes.Buffer
	if err := report.WriteTimelineHTML(&b, "http://127.0.0.1:1/tickets", f); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	checkCalls(t, page, f.History)
	lanes := laneLabel.FindAllStringSubmatch(page, -1)
	if len(lanes) != 2 || lanes[0][2] != "A/k1" || lanes[0][1] != " blamed" || lanes[1][2] != "B/k2" || lanes[1][1] != "" {
		t.Errorf("lanes %q, want A/k1 (blamed) and B/k2", lanes)
	}
	for _, want := range []string{"IDEM-001 duplicate effect", "lose-reply", "noanswer", "&lt;b&gt;&amp;"} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<b>&") || strings.Contains(page, "http://") && strings.Count(page, "http://") > 3 {
		t.Errorf("unescaped body or a network reference in the page")
	}
	for _, ref := range []string{"src=\"http", "href=\"http", "@import", "url(http"} {
		if strings.Contains(page, ref) {
			t.Errorf("the page reaches the network: %q", ref)
		}
	}
}

// checkCalls asserts one call element per op, in order, with its label.
func checkCalls(t *testing.T, dom string, h model.History) {
	t.Helper()
	got := callElem.FindAllStringSubmatch(dom, -1)
	if len(got) != len(h.Ops) {
		t.Fatalf("%d call elements, want %d", len(got), len(h.Ops))
	}
	for i, op := range h.Ops {
		if got[i][1] != op.Call.String() || got[i][2] != op.Out.String() {
			t.Errorf("call %d: label %q answer %q, want %q %q", i, got[i][1], got[i][2], op.Call.String(), op.Out.String())
		}
	}
}

// chromium finds a headless Chromium. The README asks a newcomer for Go
// and PostgreSQL only, so without one the test skips and says how to get
// it; in CI (CI=true), which installs it, a missing Chromium is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	const missing = "no chromium on PATH: apt-get install -y chromium"
	if os.Getenv("CI") == "true" {
		t.Fatal(missing + " (CI installs it: .ci/run)")
	}
	t.Skip(missing)
	return ""
}

// In headless Chromium the page loads, draws the bars (the screenshot has
// the colour of an ok answer in it), runs its script, and its DOM shows
// every call with its label.
func TestTimelineInChromium(t *testing.T) {
	bin := chromium(t)
	f := timelineFinding()
	dir, page := writePage(t, "chromium test", f)
	shot := filepath.Join(dir, "shot.png")
	headless(t, bin, dir, "--screenshot="+shot, "--window-size=1200,800", "file://"+page)
	raw, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	colours := map[[3]uint32]bool{}
	green := false
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y += 2 {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			green = green || (r>>8 == 0x4c && g>>8 == 0xaf && b>>8 == 0x50)
		}
	}
	if img.Bounds().Dx() != 1200 || len(colours) < 20 || !green {
		t.Errorf("screenshot %v with %d colours, ok-green bar drawn: %v", img.Bounds(), len(colours), green)
	}
	dom := headless(t, bin, dir, "--dump-dom", "file://"+page)
	checkCalls(t, dom, f.History)
	if want := fmt.Sprintf(`data-calls="%d"`, len(f.History.Ops)); !strings.Contains(dom, want) {
		t.Errorf("the page's script did not run: no %s in the DOM", want)
	}
}

// headless runs Chromium once, bounded, with a profile of its own.
func headless(t *testing.T, bin, dir string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	args = append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage",
		"--user-data-dir=" + filepath.Join(dir, "profile")}, args...)
	cmd := exec.CommandContext(ctx, bin, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+dir)
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// No password reaches the page: not from an answer body that quotes the
// service's database URL, nor from a violation's detail.
func TestTimelineHTMLMasksPasswords(t *testing.T) {
	f := timelineFinding()
	f.History.Ops[4].Out = model.Outcome{Kind: model.Unknown, Status: 500, Body: model.Body(`connect postgres://app:s3cret@db/x: refused`)}
	f.Violations[0].Detail = "seen postgres://app:s3cret@db/x"
	var b bytes.Buffer
	if err := report.WriteTimelineHTML(&b, "http://127.0.0.1:1/tickets", f); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "s3cret") {
		t.Errorf("the password is in the timeline page")
	}
	if strings.Count(b.String(), "app:xxxxx@db") < 2 {
		t.Errorf("the answer body or the violation's detail is not on the page, so this test shows nothing")
	}
}

// writePage writes the timeline HTML of f, titled title, into a new
// directory, and returns the directory and the page's path.
func writePage(t *testing.T, title string, f report.JUnitFailure) (dir, page string) {
	t.Helper()
	dir = t.TempDir()
	page = filepath.Join(dir, "timeline.html")
	var b bytes.Buffer
	if err := report.WriteTimelineHTML(&b, title, f); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, page
}

// No raw control byte reaches the page: an answer body, an ID or a detail
// holding ESC or a BEL shows it escaped (\x1b), as the terminal does.
func TestTimelineHTMLEscapesControlBytes(t *testing.T) {
	f := timelineFinding()
	f.History.Ops[4].Out = model.Outcome{Kind: model.Unknown, Status: 500, Body: model.Body("oops \x1b[2J\x1b]0;owned\x07")}
	f.Violations[0].Detail = "seen \x1b[31mred\x1b[0m"
	var b bytes.Buffer
	if err := report.WriteTimelineHTML(&b, "http://127.0.0.1:1/tickets", f); err != nil {
		t.Fatal(err)
	}
	if i := strings.IndexAny(b.String(), "\x1b\x07"); i >= 0 {
		t.Errorf("a raw control byte at offset %d: %q", i, b.String()[max(i-40, 0):min(i+40, b.Len())])
	}
	if !strings.Contains(b.String(), `\x1b[31mred`) {
		i := strings.Index(b.String(), "seen ")
		t.Errorf("the violation's detail is not on the page escaped, so this test shows nothing: %q", b.String()[max(i-60, 0):min(i+20, b.Len())])
	}
}
