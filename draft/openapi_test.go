package draft_test

import (
	"context"
	"testing"

	"github.com/idemstress/idemstress/draft"
)

func TestFromOpenAPIPaysvcPrint(t *testing.T) {
	d, err := draft.FromOpenAPI(context.Background(), "../examples/paysvc/openapi.yaml", "createPayment", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Render()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", b)
}
