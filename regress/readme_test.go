package regress_test

import (
	"os"
	"strings"
	"testing"
)

// docs/replay.md's replay snippet is the compiled example, word for word (but
// for the example's lower-case name, which keeps its file an example).
func TestREADMEShowsTheReplayExample(t *testing.T) {
	readme, err := os.ReadFile("../docs/replay.md")
	if err != nil {
		t.Fatal(err)
	}
	example, err := os.ReadFile("example_replay_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fn := string(example)[strings.Index(string(example), "func testRegressions("):]
	fn = fn[:strings.Index(fn, "\n}\n")+3]
	want := strings.Replace(fn, "func testRegressions(", "func TestRegressions(", 1)
	if !strings.Contains(string(readme), "```go\n"+want+"```") {
		t.Errorf("docs/replay.md does not show the replay example as it is:\n%s", want)
	}
}
