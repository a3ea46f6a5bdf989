package contract_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// A contract that cannot mean what it says is refused at load with the
// line and field, not taken for a default: typos inside a rule's range, an
// empty conflict list, absurd durations and counts; a syntax error is
// reported on its own line, not where its block starts.
func TestParseRefusesWhatCannotBeRight(t *testing.T) {
	sample := string(ticketsvc.Contract)
	process := "process:\n  command: [./ticketsvc]\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"typo in a range", strings.Replace(sample, "{int: {min: 1, max: 5}}", "{int: {mn: 1, max: 5}}", 1), `line 16: payload rule: int: unknown field "mn" (want min and max)`},
		{"empty conflict", strings.Replace(sample, "conflict: [422]", "conflict: []", 1), "statuses.conflict: empty"},
		{"negative ready_timeout", sample + process + "  ready_timeout: -1s\n", "process.ready_timeout -1s"},
		{"huge per_action", strings.Replace(sample, "per_action: 1", "per_action: 100000000000", 1), "per_action: 100000000000; want 1 to 10000"},
		{"a list item on line 42", sample + "- a\n", `line 42: did not find expected key in "- a" (in the block that starts on line 2)`},
		{"bad indentation on line 42", sample + "  per_action: 1\n", `line 42: did not find expected '-' indicator in "per_action: 1"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if strings.Count(tc.yaml, "\n") < 40 && !strings.Contains(tc.name, "line") {
				t.Fatal("the sample contract changed under the test")
			}
			_, err := contract.Parse("contract.yaml", []byte(tc.yaml))
			if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v; want a contract error with %q", err, tc.want)
			}
		})
	}
}

// FuzzParse: no contract file, however broken, makes the parser panic or
// hang, and one it accepts runs against a target.
func FuzzParse(f *testing.F) {
	f.Add(ticketsvc.Contract)
	f.Add(ticketsvc.ContractTagged)
	f.Add([]byte("target: {url: 'http://127.0.0.1:1/x', id: /id}\n"))
	f.Add([]byte("payload_rules:\n  /n: {int: {mn: 1, max: 5}}\n"))
	f.Add([]byte("a: &a [*a, *a]\nb: [\n"))
	f.Add([]byte("statuses: {conflict: []}\n- a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := contract.Parse("fuzz.yaml", data)
		if err != nil {
			if !errors.Is(err, contract.ErrContract) {
				t.Fatalf("an error that is not a contract error: %v", err)
			}
			return
		}
		if c.HTTP.URL == "" || len(c.Effects) == 0 {
			t.Fatalf("accepted a contract without a target or effects: %q", data)
		}
	})
}
