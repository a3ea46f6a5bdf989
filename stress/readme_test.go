package stress_test

import (
	"os"
	"strings"
	"testing"
)

// The README's go test snippet is the compiled example, word for word (but
// for the example's lower-case name, which keeps its file an example).
func TestREADMEShowsTheGoTestExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_check_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fn := string(example)[strings.Index(string(example), "func testIdempotency("):]
	fn = fn[:strings.Index(fn, "\n}\n")+3]
	want := strings.Replace(fn, "func testIdempotency(", "func TestIdempotency(", 1)
	if !strings.Contains(string(readme), "```go\n"+want+"```") {
		t.Errorf("README.md does not show the go test example as it is:\n%s", want)
	}
	if lines := strings.Count(want, "\n"); lines > 10 {
		t.Errorf("the go test example has %d lines; a user should write about as much as with rapid.Check", lines)
	}
}
