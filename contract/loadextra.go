package contract

import (
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// oneDocument refuses what follows the contract's document in dec: a
// second document (after ---) was ignored, whatever it said.
func oneDocument(dec *yaml.Decoder) error {
	for {
		var next yaml.Node
		switch err := dec.Decode(&next); {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return fmt.Errorf("a second YAML document after ---: %v; a contract is one document", err)
		}
		if len(next.Content) == 0 || next.Content[0].Tag == "!!null" {
			continue // an empty document: a trailing ---
		}
		return fmt.Errorf("line %d: a second YAML document after ---; a contract is one document: merge it into the first or remove it", next.Content[0].Line)
	}
}

// zeroPerAction finds an effect whose per_action is written 0: it decodes
// as left out (1 row), but says no row, which a create never writes.
func zeroPerAction(data []byte) error {
	var raw struct {
		Effects []struct {
			PerAction *int `yaml:"per_action"`
		} `yaml:"effects"`
	}
	if yaml.Unmarshal(data, &raw) != nil {
		return nil // the strict decoder says what is wrong
	}
	for i, e := range raw.Effects {
		if e.PerAction != nil && *e.PerAction == 0 {
			return fmt.Errorf("effects[%d].per_action: 0; want 1 or more (leave it out for 1): an effect table the create writes no row in is not an effect", i)
		}
	}
	return nil
}
