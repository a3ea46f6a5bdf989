package stress_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/stress"
)

// Values that would build a 1 GB key, hold a table lock for hours or start
// a hundred thousand replicas are refused at load, the bound in the
// message; the bound itself is taken.
func TestAbsurdValuesAreRefused(t *testing.T) {
	valid := string(ticketsvc.Contract)
	process := "\nprocess: {command: [./ticketsvc], replicas: %s}\n"
	for _, tc := range []struct {
		name, yaml string
		want       string // "" for a value taken
	}{
		{"huge key_max_len", valid + "\nkey_max_len: 1000000000\n", "key_max_len: 1000000000; want 16 to 65536"},
		{"largest key_max_len", valid + "\nkey_max_len: 65536\n", ""},
		{"hours of lease", valid + "\nlease: 1000h\n", "lease: 1000h0m0s; want a positive duration up to 10m0s"},
		{"longest lease", valid + "\nlease: 10m\n", ""},
		{"hours of recovery", valid + "\nrecovery: 1000h\n", "recovery: 1000h0m0s; want a positive duration up to 10m0s"},
		{"many replicas", valid + strings.Replace(process, "%s", "100000", 1), "process.replicas: 100000; want 1 to 64"},
		{"most replicas", valid + strings.Replace(process, "%s", "64", 1), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := stress.Parse("c.yaml", []byte(tc.yaml))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (!errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("err %v, want a contract error with %q", err, tc.want)
			}
		})
	}
}

// Config.Workers has the same bound when a Go caller sets it.
func TestTooManyWorkersAreRefused(t *testing.T) {
	cfg, err := stress.Parse("c.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 5000
	_, err = stress.Run(context.Background(), cfg)
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "workers: 5000; want 1 to 256") {
		t.Fatalf("workers 5000: %v", err)
	}
}

// A placeholder in the URL's host would send tenant names or keys to DNS;
// a port out of range is the contract's mistake, not the service's
// (IDEM-014). Both are contract errors at load.
func TestTargetURLIsRefused(t *testing.T) {
	valid := string(ticketsvc.Contract)
	for _, tc := range []struct{ url, want string }{
		{"http://{{tenant}}.example.com/tickets", "{{tenant}} in the host"},
		{"http://{{key}}:8080/tickets", "{{key}} in the host"},
		{"https://api-{{ tag }}.example.com/t", "{{ tag }} in the host"},
		{"http://127.0.0.1:99999/tickets", "port 99999: want 1 to 65535"},
		{"http://127.0.0.1:0/tickets", "port 0: want 1 to 65535"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			_, err := stress.Parse("c.yaml", []byte(strings.Replace(valid, "http://127.0.0.1:8080/tickets", tc.url, 1)))
			if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a contract error with %q", err, tc.want)
			}
		})
	}
	// In the path and the query a placeholder is what it is for.
	ok := strings.Replace(valid, "http://127.0.0.1:8080/tickets", "http://127.0.0.1:8080/t/{{tenant}}?k={{key}}", 1)
	if _, err := stress.Parse("c.yaml", []byte(ok)); err != nil {
		t.Errorf("placeholders in the path and query: %v", err)
	}
}

// A second YAML document was ignored, whatever it said; per_action: 0 was
// read as 1. Both are contract errors.
func TestContractShapeIsRefused(t *testing.T) {
	valid := string(ticketsvc.Contract)
	for _, tc := range []struct{ name, yaml, want string }{
		{"second document", valid + "\n---\nfaults: [crash]\n", "a second YAML document after ---"},
		{"per_action 0", strings.Replace(valid, "per_action: 1", "per_action: 0", 1), "effects[0].per_action: 0; want 1 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := stress.Parse("c.yaml", []byte(tc.yaml))
			if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want a contract error with %q", err, tc.want)
			}
		})
	}
	// A document end marker alone, or per_action left out, is fine.
	for _, ok := range []string{valid + "\n---\n", strings.Replace(valid, "    per_action: 1\n", "", 1)} {
		if _, err := stress.Parse("c.yaml", []byte(ok)); err != nil {
			t.Errorf("refused: %v", err)
		}
	}
}
