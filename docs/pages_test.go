package docs_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// link is a Markdown link's target: [text](target).
var link = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The README is a front door: short, and linking every page of docs/.
func TestREADMELinksEveryPage(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > 210 {
		t.Errorf("README.md has %d lines; a front door is read in one sitting (about 200): move detail to a docs/ page", n)
	}
	linked := map[string]bool{}
	for _, m := range link.FindAllStringSubmatch(string(readme), -1) {
		linked[strings.SplitN(m[1], "#", 2)[0]] = true
	}
	pages, _ := filepath.Glob("*.md")
	if len(pages) < 10 {
		t.Fatalf("docs/ has %d pages: %v", len(pages), pages)
	}
	for _, p := range pages {
		if p != "README.md" && !linked["docs/"+p] {
			t.Errorf("README.md does not link docs/%s", p)
		}
	}
}

// Every relative link of the README and of the pages names a file that
// exists, and an anchor a heading of the page it points into.
func TestLinksResolve(t *testing.T) {
	pages, _ := filepath.Glob("*.md")
	pages = append(pages, "../README.md")
	for _, p := range pages {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			path := p
			if file != "" {
				path = filepath.Join(filepath.Dir(p), file)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s links %s: %v", p, target, err)
					continue
				}
			}
			if anchor != "" && !hasAnchor(t, path, anchor) {
				t.Errorf("%s links %s: no heading makes the anchor #%s", p, target, anchor)
			}
		}
	}
}

// hasAnchor says whether a heading of the Markdown file makes GitHub's anchor.
func hasAnchor(t *testing.T, path, anchor string) bool {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inCode := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		if slug(strings.TrimLeft(line, "# ")) == anchor {
			return true
		}
	}
	return false
}

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}
