package effects_test

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/effects"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// A wrong stored field is named in the detail, not in What (which package
// checks makes the message of): the message is the bug's identity (a check of rows names its table), and an
// upsert that overwrites whatever a changed payload changes is one bug,
// whichever column a plan's payloads differ in.
func TestFieldsDifferMessageNamesTheTableNotTheColumn(t *testing.T) {
	e := effect.Effect{Table: "things", Fields: map[string]string{"color": "/color", "replicas": "/replicas"}}
	a := model.Action{Tenant: "A", Key: "k1"}
	winner := []byte(`{"color":"blue","replicas":2}`)
	color := effects.FieldsAgainst(e, a, winner, model.Row{Fields: map[string]string{"color": "green", "replicas": "2"}})
	replicas := effects.FieldsAgainst(e, a, winner, model.Row{Fields: map[string]string{"color": "blue", "replicas": "3"}})
	if len(color) != 1 || len(replicas) != 1 {
		t.Fatalf("violations %v and %v, want one each", color, replicas)
	}
	if color[0].What != replicas[0].What {
		t.Errorf("messages differ by column:\n%s\n%s", color[0].What, replicas[0].What)
	}
	for _, want := range []string{"things.color", "things.replicas"} {
		if v := append(color, replicas...); !strings.Contains(v[0].Detail+v[1].Detail, want) {
			t.Errorf("no detail names %s: %q, %q", want, v[0].Detail, v[1].Detail)
		}
	}
}
