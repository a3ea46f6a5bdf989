package contract

import (
	"strings"
	"testing"

	"github.com/idemstress/idemstress/examples/paysvc"
	"github.com/idemstress/idemstress/examples/ticketsvc"
)

// A Spec's digest is the one every case file written so far holds for it
// (regress replays warn when it differs): the samples' contracts, and one
// contract changed in each field the digest reads in a way of its own
// (identity noise, key_required, a key in the path, a query in the URL).
func TestDigestOfKnownSpecs(t *testing.T) {
	sample := string(ticketsvc.Contract)
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"ticketsvc", sample, "2d083b06b3d09947efc06cb292e1239e9eb5feb349683cb890f99b7ac180a24e"},
		{"ticketsvc webhook", string(ticketsvc.ContractWebhook), "5cc141333f0634b7ac860dc6ff0101bc5a0f6b4b0b53ecf746f57cad7247a139"},
		{"ticketsvc events", string(ticketsvc.ContractEvents), "1fea747d4e353e01fd4a0e7c45aa7fcee6fa26444dc1989ea9f943b4a8929e2f"},
		{"ticketsvc tagged", string(ticketsvc.ContractTagged), "52240a999dd92a52784cf1daa653f173b3444c3e87e1dbca7558bee7e4bce53f"},
		{"paysvc", string(paysvc.Contract), "163dca5517428402b24273130e5566cf576f3e7d240f1649666904fb7cd6cf33"},
		{"identity noise", sample + "identity_noise: [query]\n", "59842ea23724eb95b030e8b8f94646bfbf91e4b2bbf13246846afe6576f7210b"},
		{"all noise identity", sample + "identity_noise: [query, trace, header-case]\n", "dfbc199561e2997983765096857ef96cf97fc4ce2db55c9daa9f1161cd44da36"},
		{"keys not required", strings.Replace(sample, "key_required: true", "key_required: false", 1), "f978d1f4dc9ef0551a9f6cc749b260004539c8ed32060f45890fe02f4476b792"},
		{"key in the path", strings.Replace(sample, "8080/tickets", "8080/tickets/{{key}}", 1), "79a4f7d5f5d99c62be4bdeca2d6d5d745a2061759b64d93c79da110c57d65afd"},
		{"query in the url", strings.Replace(sample, "8080/tickets", "8080/tickets?x=1", 1), "c2f0df6d6e9316b0e14b887f8a817bf37d5ef88ae310ce41ae50af94ffc9ebda"},
	} {
		s, err := Parse(tc.name+".yaml", []byte(tc.doc))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := s.Digest(); got != "sha256:"+tc.want {
			t.Errorf("%s: digest %s, want sha256:%s (the one its case files hold)", tc.name, got, tc.want)
		}
	}
}
