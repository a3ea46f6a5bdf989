package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocsShowTheContracts: apis.md shows the four contracts the tests of
// stress/apis/<shape> run (their testdata/contract.yaml), each complete and
// under 40 lines: the page and the tests cannot drift apart.
func TestDocsShowTheContracts(t *testing.T) {
	b, err := os.ReadFile("apis.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	shapes := []string{"google", "aws", "kube", "graphql"}
	if len(blocks) != len(shapes) {
		t.Fatalf("docs/apis.md has %d yaml blocks; want %d, one per shape", len(blocks), len(shapes))
	}
	for i, shape := range shapes {
		file := "../stress/apis/" + shape + "/testdata/contract.yaml"
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if doc := blocks[i][1]; doc != string(want) {
			t.Errorf("docs/apis.md, contract %d differs from %s:\n%s\nwant:\n%s", i+1, file, doc, want)
		}
		if n := strings.Count(blocks[i][1], "\n"); n >= 40 {
			t.Errorf("docs/apis.md, contract %d: %d lines; want under 40", i+1, n)
		}
	}
}
