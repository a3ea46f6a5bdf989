package contract

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Todo is the value idemstress init leaves in a drafted contract where it
// could not fill a field; Parse refuses a contract that still holds one, so
// a draft is never run on a guess nobody made.
const Todo = "TODO"

// Todos names each field of a contract whose value is Todo, in the order
// of the file, with its line and the comment init left beside it (none
// when the YAML does not parse: the decoder proper reports that).
func Todos(data []byte) []string {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil {
		return nil
	}
	var found []string
	var walk func(path string, n *yaml.Node)
	walk = func(path string, n *yaml.Node) {
		if n == nil {
			return
		}
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(path, c)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(strings.TrimPrefix(path+"."+n.Content[i].Value, "."), n.Content[i+1])
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(path+"["+strconv.Itoa(i)+"]", c)
			}
		case yaml.ScalarNode:
			if n.Value == Todo && n.Style == 0 {
				todo := fmt.Sprintf("%s (line %d): TODO left by idemstress init", path, n.Line)
				if c := strings.TrimSpace(strings.TrimPrefix(n.LineComment, "#")); c != "" {
					todo += ": " + c
				}
				found = append(found, todo+"; fill it in, or remove the field")
			}
		}
	}
	walk("", &doc)
	return found
}
