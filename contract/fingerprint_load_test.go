package contract_test

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// changed_payload: is read into the contract, conflict by default, and a
// word it does not know is a contract error naming the field.
func TestChangedPayloadPolicy(t *testing.T) {
	sample := string(ticketsvc.Contract)
	for _, tc := range []struct {
		add      string
		replayed bool
	}{{"", false}, {"changed_payload: conflict\n", false}, {"changed_payload: replayed\n", true}} {
		c, err := contract.Parse("c.yaml", []byte(sample+"\n"+tc.add))
		if err != nil {
			t.Fatalf("%q: %v", tc.add, err)
		}
		if c.Contract.ChangedReplayed != tc.replayed {
			t.Errorf("%q: ChangedReplayed = %v", tc.add, c.Contract.ChangedReplayed)
		}
	}
	// Under replayed no answer need mean "conflict": the default's 422 is
	// dropped, and an empty list is allowed; under conflict it is not.
	noConflict := strings.Replace(sample, "conflict: [422]", "conflict: []", 1)
	if c, err := contract.Parse("c.yaml", []byte(noConflict+"\nchanged_payload: replayed\n")); err != nil || len(c.Contract.Statuses.Conflict) != 0 {
		t.Errorf("statuses.conflict: [] under replayed: %v, %v", err, c.Contract.Statuses.Conflict)
	}
	if _, err := contract.Parse("c.yaml", []byte(noConflict)); !errors.Is(err, contract.ErrContract) {
		t.Errorf("statuses.conflict: [] under conflict: %v; want a contract error", err)
	}
	if c, err := contract.Parse("c.yaml", []byte(strings.Replace(sample, "  conflict: [422]\n", "", 1)+"\nchanged_payload: replayed\n")); err != nil || len(c.Contract.Statuses.Conflict) != 0 {
		t.Errorf("no statuses.conflict under replayed: %v, %v; want no conflict status", err, c.Contract.Statuses.Conflict)
	}
	_, err := contract.Parse("c.yaml", []byte(sample+"\nchanged_payload: ignored\n"))
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "changed_payload") || !strings.Contains(err.Error(), "replayed") {
		t.Errorf("changed_payload: ignored: %v; want a contract error naming the field and its words", err)
	}
}

// unique: and answers.taken reach the contract; a unique
// pointer the payload cannot give each action a value of its own, or a
// taken: matcher with no unique field, is a contract error naming it.
func TestUniqueFields(t *testing.T) {
	sample := string(ticketsvc.Contract)
	taken := "answers:\n  taken:\n    - status: [403]\n      equals: {/error: name_taken}\n"
	c, err := contract.Parse("c.yaml", []byte(sample+"\nunique: [/subject]\n"+taken))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Contract.Unique) != 1 || len(c.Contract.Answers.Taken) != 1 {
		t.Errorf("unique %v, taken %v", c.Contract.Unique, c.Contract.Answers.Taken)
	}
	for _, tc := range []struct{ add, want string }{
		{"unique: [/title]\n", "unique: /title"},
		{"unique: [/priority]\n", "string field"},
		{taken, "answers.taken"},
		{"unique: [/subject]\nanswers:\n  taken:\n    - status: [422]\n", "422"},
	} {
		_, err := contract.Parse("c.yaml", []byte(sample+"\n"+tc.add))
		if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want a contract error naming %q", tc.add, err, tc.want)
		}
	}
}

// docs/contract.md's "Fingerprint policy" and "Second unique fields"
// sections: each contract is complete, under 40 lines, and says what the
// section says.
func TestContractDocsPolicySections(t *testing.T) {
	raw, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		section, name string
		unique        bool
	}{
		{"## Fingerprint policy", "Kubernetes-like", false},
		{"## Second unique fields", "Compute-like", true},
	} {
		text := string(raw)
		start := strings.Index(text, tc.section)
		if start < 0 {
			t.Fatalf("docs/contract.md has no %q section", tc.section)
		}
		text = text[start:]
		block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(text)
		if block == nil || !strings.HasPrefix(block[1], "# "+tc.name) || strings.Count(block[1], "\n") >= 40 {
			t.Fatalf("%s: want a %s contract of under 40 lines, got %q", tc.section, tc.name, block)
		}
		c, err := contract.Parse(tc.name+".yaml", []byte(block[1]))
		if err != nil {
			t.Fatalf("%s contract: %v", tc.name, err)
		}
		if !c.Contract.ChangedReplayed || (len(c.Contract.Unique) > 0) != tc.unique {
			t.Errorf("%s contract: replayed %v, unique %v", tc.name, c.Contract.ChangedReplayed, c.Contract.Unique)
		}
	}
}
