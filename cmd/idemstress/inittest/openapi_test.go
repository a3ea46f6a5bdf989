package inittest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// init on a Google-like document (Compute Engine's instances.insert)
// drafts requestId, a query parameter, as the key with its UUID format,
// and takes the bearer token --header gave in place of the OAuth scheme's
// TODO; the token is written to the contract and printed nowhere. No
// database: the effects stay a TODO, which doctor names.
func TestInitComputeLikeDocument(t *testing.T) {
	const token = "Bearer ya29.s3cr3t-t0ken"
	contract := filepath.Join(t.TempDir(), "contract.yaml")
	code, stdout, stderr := invoke(t, "init", "--out", contract,
		"--openapi", "../../../internal/draft/openapi/testdata/compute.yaml", "--operation", "compute.instances.insert",
		"--header", "Authorization: "+token)
	b, err := os.ReadFile(contract)
	if err != nil {
		t.Fatalf("init: exit %d, no contract: %v\n%s%s", code, err, stdout, stderr)
	}
	text := string(b)
	for _, want := range []string{
		"/projects/{{tenant}}/zones/us-central1-a/instances?requestId={{key}}",
		"key_format: uuid", "key_required: false", "id: /targetId",
		"Authorization: " + token + " # --header",
		"in_flight: [] # guessed: the document lists no in-progress answer",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the draft lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Authorization: TODO") || strings.Contains(text, "Idempotency-Key") {
		t.Errorf("the scheme's TODO beside the token, or a key header guessed:\n%s", text)
	}
	if !strings.Contains(stderr, "wrote "+contract) || !strings.Contains(stdout+stderr, "effects") {
		t.Errorf("init's output does not name the file and the effects TODO:\n%s%s", stdout, stderr)
	}
	if strings.Contains(stdout+stderr, "s3cr3t") {
		t.Errorf("the token reached the output:\n%s%s", stdout, stderr)
	}
}
