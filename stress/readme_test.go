package stress_test

import (
	"os"
	"strings"
	"testing"
)

// The go test snippet of the README and of docs/go-test.md is the compiled
// example, word for word (but for the example's lower-case name, which keeps
// its file an example).
func TestREADMEShowsTheGoTestExample(t *testing.T) {
	example, err := os.ReadFile("example_check_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fn := string(example)[strings.Index(string(example), "func testIdempotency("):]
	fn = fn[:strings.Index(fn, "\n}\n")+3]
	want := strings.Replace(fn, "func testIdempotency(", "func TestIdempotency(", 1)
	for _, page := range []string{"../README.md", "../docs/go-test.md"} {
		text, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(text), "```go\n"+want+"```") {
			t.Errorf("%s does not show the go test example as it is:\n%s", page, want)
		}
	}
	if lines := strings.Count(want, "\n"); lines > 10 {
		t.Errorf("the go test example has %d lines; a user should write about as much as with rapid.Check", lines)
	}
}
