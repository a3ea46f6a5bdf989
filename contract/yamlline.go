package contract

import (
	"bytes"
	"sort"

	"go.yaml.in/yaml/v3"
)

// problemLine finds the line of a YAML syntax error that the library
// reported at line ctx: for an error inside a block it gives the line the
// block starts on ("- a" on line 40 of a mapping begun on line 2 is
// reported as line 2). The problem is on the first line whose prefix of
// the file fails to parse with the same message; found by bisection over
// the lines from ctx on (a prefix that stops inside a construct spread
// over several lines may fail too, so the answer is at worst as wrong as
// the library's). ok is false when no prefix fails that way.
func problemLine(data []byte, ctx int, msg string) (int, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if ctx < 1 || ctx > len(lines) {
		return 0, false
	}
	fails := func(n int) bool {
		var v any
		err := yaml.Unmarshal(bytes.Join(lines[:n], nil), &v)
		return err != nil && bytes.HasSuffix([]byte(err.Error()), []byte(msg))
	}
	n := ctx + sort.Search(len(lines)-ctx+1, func(i int) bool { return fails(ctx + i) })
	if n > len(lines) {
		return 0, false
	}
	return n, true
}
