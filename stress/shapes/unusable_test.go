package shapes_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/stress"
)

// A request the service never accepts (a wrong path, a payload without a
// field it requires, a key header it does not read) is the contract's
// mistake: a contract error quoting the first answer, not violations.
func TestNoUsableAnswerIsAContractError(t *testing.T) {
	t.Parallel()
	url, dbURL := serveAPI(t, squareStyle, "")
	for _, tc := range []struct {
		name, from, to string
		want           []string
	}{
		{"wrong path", "url: URL", "url: URLz", []string{"404", "NOT_FOUND"}},
		{"missing required field", "payload: {note: coffee, amount: 1250}", "payload: {amount: 1250}", []string{"400", "INVALID_REQUEST_BODY"}},
		{"misspelt key header", "Idempotency-Key:", "Idempotency-Kee:", []string{"400", "MISSING_REQUIRED_PARAMETER", "key header"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// With the answers: of the service, and with the shorthand alone
			// (a 400 is invalid).
			for _, base := range []string{squareContract, squareContract[:strings.Index(squareContract, "answers:")] + squareContract[strings.Index(squareContract, "effects:"):]} {
				doc := strings.Replace(base, tc.from, tc.to, 1)
				if tc.name == "missing required field" {
					doc = strings.Replace(doc, "fields: {note: /note}", "fields: {}", 1)
				}
				_, err := stress.Run(t.Context(), apiConfig(t, doc, url, dbURL, 100))
				if !errors.Is(err, contract.ErrContract) {
					t.Fatalf("Run: %v; want a contract error", err)
				}
				for _, w := range append(tc.want, "no call of the run was answered created or replayed") {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("Run: %v; want it to say %q", err, w)
					}
				}
			}
		})
	}
}

// Transport failures are infrastructure (an inconclusive run, exit 3),
// never the service's violations; a request that could never be sent is a
// contract error before any call (exit 2).
func TestTransportAndRequestFailures(t *testing.T) {
	t.Parallel()
	url, dbURL := serveAPI(t, squareStyle, "")
	https := strings.Replace(url, "http://", "https://", 1)

	cfg := apiConfig(t, squareContract, https, dbURL, 20)
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Inconclusive || len(res.Failures) > 0 || res.Err == nil || !strings.Contains(res.Err.Error(), "write http://") {
		t.Errorf("https against plain HTTP: %s, %d failures (%v); want inconclusive saying to write http://", res.Verdict, len(res.Failures), res.Err)
	}

	for _, tc := range []struct{ name, from, to, want string }{
		{"method with a space", "url: URL", "url: URL\n  method: PO ST", "target.method"},
		{"header name with a space", "Idempotency-Key:", "Idempotency Key:", "not a header name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := stress.Parse("contract.yaml", []byte(strings.Replace(strings.Replace(squareContract, tc.from, tc.to, 1), "URL", url, 1)))
			if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Parse: %v; want a contract error saying %q", err, tc.want)
			}
		})
	}
}

// A service that never answers ok because every answer is a 5xx is not a
// contract mistake: its bugs are still hunted and reported.
func TestNoOKAnswerStillReportsBugs(t *testing.T) {
	t.Parallel()
	url, dbURL := serveAPI(t, squareStyle, "insert-then-500")
	cfg := apiConfig(t, squareContract, url, dbURL, 50)
	cfg.MaxBugs = 1
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != checks.Fail || len(res.Failures) == 0 {
		t.Fatalf("a service that stores every call and answers 500: %s (%v, failures %v); want its bugs reported", res.Verdict, res.Err, checksOf(res))
	}
}

func checksOf(res *stress.Result) []checks.ID {
	var ids []checks.ID
	for _, f := range res.Failures {
		ids = append(ids, f.Check)
	}
	return ids
}

// Issue 16.5: a run whose calls were answered 5xx only, and then one 404,
// had hunted real bugs (rows stored behind every 500) and dropped them all
// for the contract error of a run that never got a usable answer. Bugs
// found are reported; the odd answer is a note.
func TestBugsFoundBeforeAnUnusableAnswerAreReported(t *testing.T) {
	t.Parallel()
	url, dbURL := serveAPI(t, squareStyle, "insert-then-500-one-404")
	cfg := apiConfig(t, squareContract, url, dbURL, 50)
	res, err := stress.Run(t.Context(), cfg)
	if err != nil {
		t.Fatalf("Run: %v; want the bugs found reported", err)
	}
	if res.Verdict != checks.Fail || len(res.Failures) == 0 {
		t.Fatalf("%s (%v, failures %v); want the bugs found reported", res.Verdict, res.Err, checksOf(res))
	}
	if !slices.ContainsFunc(res.Notes, func(n string) bool { return strings.Contains(n, "404") && strings.Contains(n, "NOT_FOUND") }) {
		t.Errorf("no note quotes the 404: %q", res.Notes)
	}
}
