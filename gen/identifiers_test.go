package gen_test

import (
	"regexp"
	"testing"

	"pgregory.net/rapid"

	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// Every key drawn for a world whose shapes are the contract's is one the
// API takes: for a key_pattern, a whole match; and the shapes inside the
// pattern are drawn.
func TestDrawnKeysMatchThePattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		maxLen  int
		shapes  string // the shapes that must be drawn
	}{
		{`[\x21-\x7e]{1,64}`, 64, "cl"}, // an AWS client token
		{`\w+`, 0, "cl"},                // ACM's
		{`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`, 0, ""}, // AIP-155's request ID
	} {
		c := model.DefaultContract()
		c.KeyPattern, c.KeyMaxLen = tc.pattern, tc.maxLen
		re := regexp.MustCompile(`^(?:` + tc.pattern + `)$`)
		w := gen.DefaultWorld()
		w.Shapes = identifiers.KeyShapes(c)
		w.KeyShapes = len(w.Shapes) > 0
		drawn := map[byte]bool{}
		rapid.Check(t, func(rt *rapid.T) {
			p := gen.Plan(w).Draw(rt, "plan")
			for _, s := range p.Steps {
				for _, call := range s.Calls {
					if call.NoKey {
						continue
					}
					drawn[identifiers.KeyShape(call.Key)] = true
					if sent := identifiers.SentKey(c, "is4d980a21-12-", call.Key); !re.MatchString(sent) {
						rt.Fatalf("key_pattern %s: key %s sent as %q, which it does not match", tc.pattern, call.Key, sent)
					}
				}
			}
		})
		for _, s := range []byte(tc.shapes) {
			if !drawn[s] {
				t.Errorf("key_pattern %s: no key of shape %c drawn (drawn: %v)", tc.pattern, s, drawn)
			}
		}
	}
}
