package contract

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/idemstress/idemstress/internal/model"
)

// answersFile is the contract's answers: section: for each outcome, the
// matchers that recognise its answers (docs/contract.md, "Answers").
type answersFile struct {
	Created  []matcherFile `yaml:"created"`
	Replayed []matcherFile `yaml:"replayed"`
	Conflict []matcherFile `yaml:"conflict"`
	InFlight []matcherFile `yaml:"in_flight"`
	Invalid  []matcherFile `yaml:"invalid"`

	// ServerError: answers judged as a 5xx is (model.Answers.ServerError).
	ServerError []matcherFile `yaml:"server_error"`
	// Taken: the refusal of a unique value another action holds (unique:).
	Taken []matcherFile `yaml:"taken"`
}

type matcherFile struct {
	Status  statusList        `yaml:"status"`
	Equals  map[string]string `yaml:"equals"`
	Matches map[string]string `yaml:"matches"`
	Present []string          `yaml:"present"`
	Absent  []string          `yaml:"absent"`
	ID      string            `yaml:"id"`
}

// statusList is a status, a class such as 4xx, or a list of them.
type statusList []int

func (s *statusList) UnmarshalYAML(n *yaml.Node) error {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	for _, item := range items {
		v := strings.ToLower(item.Value)
		if item.Kind == yaml.ScalarNode && len(v) == 3 && strings.HasSuffix(v, "xx") && v[0] >= '1' && v[0] <= '5' {
			*s = append(*s, model.AnyStatus(int(v[0]-'0'))...)
			continue
		}
		code, err := strconv.Atoi(item.Value)
		if item.Kind != yaml.ScalarNode || err != nil {
			return fmt.Errorf("line %d: status %q: want an HTTP status such as 400, a class such as 4xx, or a list of them", item.Line, item.Value)
		}
		*s = append(*s, code)
	}
	return nil
}

// answers are the matchers of the file, refusing an outcome given both
// here and in the statuses: shorthand (which would win is a guess).
func (f *answersFile) answers(short *model.Statuses) (model.Answers, error) {
	var a model.Answers
	if f == nil {
		return a, nil
	}
	if short != nil {
		for _, both := range []struct {
			name    string
			answers []matcherFile
			codes   []int
		}{{"conflict", f.Conflict, short.Conflict}, {"in_flight", f.InFlight, short.InFlight}, {"invalid", f.Invalid, short.Invalid}} {
			if len(both.answers) > 0 && both.codes != nil {
				return a, fmt.Errorf("answers.%s and statuses.%s both say what a %s answer is; keep one (answers: can say all statuses: can)", both.name, both.name, both.name)
			}
		}
	}
	a.Created, a.Replayed, a.Conflict = matchers(f.Created), matchers(f.Replayed), matchers(f.Conflict)
	a.InFlight, a.Invalid = matchers(f.InFlight), matchers(f.Invalid)
	a.ServerError = matchers(f.ServerError)
	a.Taken = matchers(f.Taken)
	return a, nil
}

func matchers(ms []matcherFile) []model.Matcher {
	var out []model.Matcher
	for _, m := range ms {
		out = append(out, model.Matcher{Status: m.Status, Equals: m.Equals, Matches: m.Matches, Present: m.Present, Absent: m.Absent, ID: m.ID})
	}
	return out
}
