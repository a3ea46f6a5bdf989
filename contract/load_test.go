package contract_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
)

func TestParseSampleContract(t *testing.T) {
	c, err := contract.Parse("contract.yaml", ticketsvc.Contract)
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Headers["Idempotency-Key"] != "{{key}}" || c.HTTP.ID != "/ticket_id" {
		t.Errorf("target %+v", c.HTTP)
	}
	if c.Contract.Equivalence != model.EquivalenceCanonicalJSON || c.Contract.KeyScope != model.KeyScopeTenant || c.Contract.KeylessCreates {
		t.Errorf("contract %+v", c.Contract)
	}
	if len(c.Effects) != 2 || c.Effects[1].References == nil || c.Effects[0].Fields["subject"] != "/subject" {
		t.Errorf("effects %+v", c.Effects)
	}
}

// Every contract error names the file and the field, and says what is
// wanted instead.
func TestContractErrors(t *testing.T) {
	valid := string(ticketsvc.Contract)
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"malformed YAML", "target: [", []string{"bad.yaml", "yaml"}},
		{"empty", "", []string{"bad.yaml", "empty"}},
		{"unknown field", valid + "\nretries: 3\n", []string{"bad.yaml", "retries", "unknown field"}},
		{"wrong type", strings.Replace(valid, "per_action: 1", "per_action: lots", 1), []string{"bad.yaml", "lots", "int"}},
		{"bad equivalence", strings.Replace(valid, "equivalence: canonical-json", "equivalence: fuzzy", 1), []string{"bad.yaml", "equivalence", "fuzzy", "canonical-json"}},
		{"bad body", strings.Replace(valid, "  id: /ticket_id\n", "  id: /ticket_id\n  body: xml\n", 1), []string{"bad.yaml", "target.body", "xml", "form"}},
		{"bad numbers", valid + "\nnumbers: floats\n", []string{"bad.yaml", "numbers", "floats", "strict", "loose"}},
		{"bad errors", valid + "\nerrors: replayed\n", []string{"bad.yaml", "errors", "replayed", "not-stored", "stored"}},
		{"bad lease", valid + "\nlease: 0s\n", []string{"bad.yaml", "lease", "0s", "positive"}},
		{"slow original without a lease", valid + "\nfaults: [slow-original]\n", []string{"faults", "slow-original", "needs lease"}},
		{"bad key scope", strings.Replace(valid, "key_scope: tenant", "key_scope: user", 1), []string{"key_scope", "user", "global"}},
		{"missing id", strings.Replace(valid, "  id: /ticket_id\n", "", 1), []string{"target.id", "missing"}},
		{"relative url", strings.Replace(valid, "http://127.0.0.1:8080/tickets", "/tickets", 1), []string{"target.url", "/tickets"}},
		{"unknown placeholder", strings.Replace(valid, "{{tenant}}", "{{user}}", 1), []string{"{{user}}", "{{tenant}}"}},
		{"no effects", valid[:strings.Index(valid, "effects:")], []string{"effects", "none"}},
		{"one status for two refusals", strings.Replace(valid, "conflict: [422]", "conflict: [409]", 1), []string{"statuses", "409", "conflict", "in_flight"}},
		{"a 2xx refusal", strings.Replace(valid, "invalid: [400]", "invalid: [200]", 1), []string{"statuses", "200"}},
		{"a field pointer into nothing", strings.Replace(valid, "subject: /subject", "subject: /title", 1), []string{"fields.subject", "/title", "points at nothing"}},
		{"key never sent", strings.Replace(valid, `Idempotency-Key: "{{key}}"`, `Idempotency-Key: "fixed"`, 1), []string{"target", "{{key}}", "idempotency key"}},
		{"tenant never sent", strings.Replace(valid, `X-Tenant: "{{tenant}}"`, `X-Tenant: "acme"`, 1), []string{"{{tenant}}", "key_scope", "global"}},
		{"negative timeout", strings.Replace(valid, "timeout: 10s", "timeout: -5s", 1), []string{"target.timeout", "-5s", "positive"}},
		{"zero timeout", strings.Replace(valid, "timeout: 10s", "timeout: 0s", 1), []string{"target.timeout", "0s", "positive"}},
		{"dangling reference", strings.Replace(valid, "table: tickets\n", "table: ticket\n", 1), []string{"references.table", "ticket"}},
		{"unknown fault", valid + "\nfaults: [lose-reply, meteor]\n", []string{"faults", "meteor", "lose-reply, drop-request"}},
		{"restart of a service not ours", valid + "\nfaults: [restart]\n", []string{"faults", "restart", "process section"}},
		{"crash of a service not ours", valid + "\nfaults: [crash]\n", []string{"faults", "crash", "process section"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := contract.Parse("bad.yaml", []byte(tc.yaml))
			if !errors.Is(err, contract.ErrContract) {
				t.Fatalf("err %v, want ErrContract", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			if strings.Count(err.Error(), "\n") > 0 && tc.name != "malformed YAML" {
				t.Errorf("error spans several lines: %q", err)
			}
		})
	}
}

// faults: the proxy kinds need only an HTTP target; the process kinds a
// process section.
func TestContractFaults(t *testing.T) {
	valid := string(ticketsvc.Contract)
	cfg, err := contract.Parse("c.yaml", []byte(valid+"\nfaults: [lose-reply, drop-request, double-delivery, delay]\n"))
	if err != nil || len(cfg.Faults) != 4 {
		t.Fatalf("proxy faults: %v, %v", cfg.Faults, err)
	}
	withProcess := valid + "\nprocess:\n  command: [./ticketsvc]\nfaults: [restart, crash, lose-reply]\n"
	if cfg, err = contract.Parse("c.yaml", []byte(withProcess)); err != nil || len(cfg.Faults) != 3 {
		t.Fatalf("process faults: %v, %v", cfg.Faults, err)
	}
}

// A tenant left out of the calls is fine when keys are global; a timeout
// left out is the default.
func TestContractWithoutTenant(t *testing.T) {
	yaml := strings.Replace(string(ticketsvc.Contract), `X-Tenant: "{{tenant}}"`, `X-Tenant: "acme"`, 1)
	yaml = strings.Replace(yaml, "key_scope: tenant", "key_scope: global", 1)
	yaml = strings.Replace(yaml, "  timeout: 10s\n", "", 1)
	c, err := contract.Parse("global.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if c.HTTP.Timeout != 0 {
		t.Errorf("timeout %s, want it left to the target's default", c.HTTP.Timeout)
	}
}

// A contract file is bounded: /dev/zero is refused, not read until memory
// runs out.
func TestLoadBounded(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, []byte(strings.Repeat("# padding\n", 200_000)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, "/dev/zero"} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		_, err := contract.Load(path)
		if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "more than 1 MiB") {
			t.Errorf("Load(%s): %v; want a contract error about its size", path, err)
		}
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := contract.Load(filepath.Join(t.TempDir(), "nope.yaml"))
	if !errors.Is(err, contract.ErrContract) || !errors.Is(err, os.ErrNotExist) && !strings.Contains(err.Error(), "nope.yaml") {
		t.Fatalf("err %v", err)
	}
}

// payload_rules, key_compare, key_max_len and identity_noise reach the
// contract and the world; mistakes in them are contract errors naming the
// field.
func TestPayloadRulesAndKeys(t *testing.T) {
	sample := string(ticketsvc.Contract)
	start := strings.Index(sample, "payload_rules:")
	end := start + strings.Index(sample[start:], "\nstatuses:")
	yaml := sample[:start] + `  currency: EUR
payload_rules:
  /currency: fixed
  /channel: {enum: [email, sms]}
  /priority: {int: {min: 1, max: 5}}
  /subject: {max_len: 40}` + sample[end:] + `
key_compare: trim
key_max_len: 64
identity_noise: [query]
numbers: loose
errors: stored
lease: 250ms
`
	c, err := contract.Parse("rules.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Contract.Fields["/currency"].Fixed || len(c.Contract.Fields["/channel"].Enum) != 2 ||
		c.Contract.Fields["/priority"].Int.Max != 5 || c.Contract.Fields["/subject"].MaxLen != 40 {
		t.Errorf("rules %+v", c.Contract.Fields)
	}
	if !c.Contract.LooseNumbers {
		t.Errorf("numbers: loose not read")
	}
	if !c.Contract.ErrorsStored {
		t.Errorf("errors: stored not read")
	}
	if c.Contract.Lease != 250*time.Millisecond {
		t.Errorf("lease: 250ms read as %s", c.Contract.Lease)
	}
	if c.Contract.KeyCompare != model.KeyCompareTrim || c.Contract.KeyMaxLen != 64 {
		t.Errorf("keys: %s, %d", c.Contract.KeyCompare, c.Contract.KeyMaxLen)
	}
	if !slices.Equal(c.IdentityNoise, []model.Noise{model.NoiseQuery}) {
		t.Errorf("identity noise %v: query is part of identity, trace is not", c.IdentityNoise)
	}
	for _, tc := range []struct{ edit, want string }{
		{"/channel: {enum: [email, sms]}", "/channel: {enum: [email]}"},
		{"/priority: {int: {min: 1, max: 5}}", "/priority: {int: {min: 4, max: 5}}"},
		{"/currency: fixed", "/currency: frozen"},
		{"/currency: fixed", "/currency: {fixd: true}"},
		{"key_compare: trim", "key_compare: fuzzy"},
		{"identity_noise: [query]", "identity_noise: [cookies]"},
	} {
		_, err := contract.Parse("rules.yaml", []byte(strings.Replace(yaml, tc.edit, tc.want, 1)))
		if !errors.Is(err, contract.ErrContract) {
			t.Errorf("%s: %v; want a contract error", tc.want, err)
		}
	}
	_, err = contract.Parse("rules.yaml", []byte(strings.Replace(yaml, "/channel: {enum: [email, sms]}", "/channel: {enum: [email]}", 1)))
	if err == nil || !strings.Contains(err.Error(), "payload_rules./channel") || !strings.Contains(err.Error(), "two members") {
		t.Errorf("enum of one: %v; want it to name payload_rules./channel", err)
	}
}

// The key and the tenant may travel in the payload alone (Square's
// idempotency_key): such a contract is valid; one with neither anywhere
// is not.
func TestKeyInPayload(t *testing.T) {
	const square = `target:
  url: http://127.0.0.1:8080/payments
  id: /id
payload:
  idempotency_key: "{{key}}"
  order: {location_id: "{{tenant}}", amount: 1250}
effects:
  - {table: payments, tenant: tenant, key: idem_key}
`
	if _, err := contract.Parse("square.yaml", []byte(square)); err != nil {
		t.Errorf("key and tenant in the payload: %v", err)
	}
	_, err := contract.Parse("square.yaml", []byte(strings.Replace(square, `"{{key}}"`, `"fixed"`, 1)))
	if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "{{key}}") {
		t.Errorf("no key anywhere: %v; want a contract error naming {{key}}", err)
	}
}

// docs/contract.md's body-key and form-body snippets are valid contracts once
// given their effect tables.
func TestREADMEBodySnippets(t *testing.T) {
	readme, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "A Square-style body key")
	if start < 0 {
		t.Fatal("docs/contract.md lost the body-key snippets")
	}
	block := text[start:]
	block = block[strings.Index(block, "```yaml\n")+len("```yaml\n"):]
	block = block[:strings.Index(block, "```")]
	docs := strings.Split(block, "---\n")
	if len(docs) != 2 {
		t.Fatalf("want two snippets, got %d", len(docs))
	}
	for i, doc := range docs {
		c, err := contract.Parse("docs/contract.md", []byte(doc+"effects: [{table: payments, tenant: tenant, key: idem_key}]\n"))
		if err != nil {
			t.Errorf("snippet %d: %v", i+1, err)
			continue
		}
		if want := []bool{false, true}[i]; (c.HTTP.Body == "form") != want {
			t.Errorf("snippet %d: body %q", i+1, c.HTTP.Body)
		}
	}
}

// A field idemstress init could not fill is a TODO, and a contract that
// still holds one is refused with a line naming the field and init's
// comment; "TODO" quoted is a value like any other.
func TestParseRefusesTODO(t *testing.T) {
	base := "target: {url: \"http://127.0.0.1:1/t/{{tenant}}\", headers: {Idempotency-Key: \"{{key}}\"}, id: /id}\npayload: {note: hi}\n"
	_, err := contract.Parse("c.yaml", []byte(base+"effects:\n  - table: tickets\n    tenant: tenant\n    key: TODO   # no column held the key\n"))
	if err == nil || !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), "effects[0].key (line 6): TODO left by idemstress init: no column held the key") {
		t.Errorf("a TODO key: %v", err)
	}
	if _, err := contract.Parse("c.yaml", []byte(base+"effects: [{table: tickets, tenant: tenant, key: \"TODO\"}]\n")); err != nil {
		t.Errorf("a quoted TODO: %v", err)
	}
}

// Todos lists every field left a TODO, and only fields: init's header
// comment, which speaks of TODOs, is none (init said "2 TODOs" of a draft
// that held one).
func TestTodosCountsFields(t *testing.T) {
	draft := "# run refuses a TODO, naming it\ntarget: {url: TODO, id: TODO}   # a TODO here too\npayload: {note: \"TODO\"}\n"
	todos := contract.Todos([]byte(draft))
	if len(todos) != 2 || !strings.HasPrefix(todos[0], "target.url (line 2)") || !strings.HasPrefix(todos[1], "target.id (line 2)") {
		t.Errorf("todos of the draft: %q, want target.url and target.id", todos)
	}
}

// {port} in target.url stands for the replica's port where a process:
// section starts the service; without one it is refused, naming it (a
// user copied :8080 from an example, then tried {port}, refused both
// ways).
func TestPortPlaceholderInURL(t *testing.T) {
	base := "target: {url: \"http://127.0.0.1:{port}/t\", headers: {Idempotency-Key: \"{{key}}\", X-Tenant: \"{{tenant}}\"}, id: /id}\npayload: {note: hi}\neffects: [{table: tickets, tenant: tenant, key: key}]\n"
	if _, err := contract.Parse("c.yaml", []byte(base+"process: {command: [./svc, \"127.0.0.1:{port}\"]}\n")); err != nil {
		t.Errorf("{port} with a process section: %v", err)
	}
	if _, err := contract.Parse("c.yaml", []byte(base)); err == nil || !strings.Contains(err.Error(), "{port} is filled in only when a process: section starts the service") {
		t.Errorf("{port} without a process section: %v", err)
	}
}
