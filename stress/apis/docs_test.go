package apis_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// docsBase is the service's address in docs/apis.md's contracts.
const docsBase = "http://127.0.0.1:8080"

// docs/apis.md shows the four contracts these tests run, each complete
// and under 40 lines: the page and the tests cannot drift apart.
func TestDocsShowTheContracts(t *testing.T) {
	b, err := os.ReadFile("../../docs/apis.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	want := []struct{ name, contract string }{
		{"googleContract", googleContract}, {"awsContract", awsContract}, {"kubeContract", kubeContract}, {"graphqlContract", graphqlContract},
	}
	if len(blocks) != len(want) {
		t.Fatalf("docs/apis.md has %d yaml blocks; want %d, one per shape", len(blocks), len(want))
	}
	for i, w := range want {
		doc, code := blocks[i][1], strings.ReplaceAll(w.contract, "BASE", docsBase)
		if doc != code {
			t.Errorf("docs/apis.md, contract %d differs from %s:\n%s\nwant:\n%s", i+1, w.name, doc, code)
		}
		if n := strings.Count(doc, "\n"); n >= 40 {
			t.Errorf("docs/apis.md, contract %d: %d lines; want under 40", i+1, n)
		}
	}
}
