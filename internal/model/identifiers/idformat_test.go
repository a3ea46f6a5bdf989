package identifiers_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/model/identifiers"
)

// formatRE is each format as the API documents it, written here apart
// from the model's own, so that the test can fail.
var formatRE = map[model.IDFormat]*regexp.Regexp{
	model.IDWord:     regexp.MustCompile(`^[A-Za-z0-9_]+$`),
	model.IDDNSLabel: regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`),
	// RFC 9562's version 4, in lower case.
	model.IDUUID: regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`),
}

// Every key a format makes is in the format, starts with the namespace's
// prefix (and so with the run's), and reads back as its logical key, in
// every shape the format admits.
func TestKeyFormatsRoundTrip(t *testing.T) {
	for _, ns := range []model.Namespace{"is4d980a21-1-", "is4d980a21-123456-", "isffffff00-7-", "is01234567-9-key-"} {
		run := ns[:len("is4d980a21-")]
		for f, re := range formatRE {
			c := model.DefaultContract()
			c.KeyFormat = f
			shapes := identifiers.KeyShapes(c)
			for _, k := range []string{"k1", "k4", "k12"} {
				logical := []string{k}
				for _, s := range shapes {
					logical = append(logical, model.Shaped(k, s))
				}
				for _, l := range logical {
					sent := identifiers.SentKey(c, ns, l)
					if !re.MatchString(sent) {
						t.Errorf("%s: SentKey(%q, %q) = %q: not in the format", f, ns, l, sent)
					}
					if !strings.HasPrefix(sent, identifiers.KeyPrefix(c, ns)) || !strings.HasPrefix(sent, identifiers.KeyPrefix(c, run)) {
						t.Errorf("%s: SentKey(%q, %q) = %q: does not start with the namespace's prefix %q or the run's %q", f, ns, l, sent, identifiers.KeyPrefix(c, ns), identifiers.KeyPrefix(c, run))
					}
					if back, ok := identifiers.LogicalKey(c, ns, sent); !ok || back != l {
						t.Errorf("%s: LogicalKey(%q) = %q, %v; want %q", f, sent, back, ok, l)
					}
					if _, ok := identifiers.LogicalKey(c, "is4d980a21-2-", sent); ok && f != model.IDAny {
						t.Errorf("%s: key %q of %s read as one of another namespace", f, sent, ns)
					}
				}
			}
		}
	}
}

// A format draws only the shapes it can send and tell apart.
func TestKeyShapesInsideTheFormat(t *testing.T) {
	for _, tc := range []struct {
		format  model.IDFormat
		pattern string
		maxLen  int
		want    string // shape letters
	}{
		{"", "", 0, "scul"},
		{model.IDAny, "", 0, "scul"},
		{model.IDWord, "", 0, "cl"},
		{model.IDDNSLabel, "", 0, "l"},
		{model.IDUUID, "", 0, ""},
		// AWS's ClientToken: ASCII, at most 64: the long shape only
		// with key_max_len 64.
		{"", `[\x21-\x7e]{1,64}`, 0, "c"},
		{"", `[\x21-\x7e]{1,64}`, 64, "cl"},
		{"", `[0-9a-fA-F-]{36}`, 0, ""}, // a UUID in either case: served by uuid
	} {
		c := model.DefaultContract()
		c.KeyFormat, c.KeyPattern, c.KeyMaxLen = tc.format, tc.pattern, tc.maxLen
		if err := identifiers.Validate(c); err != nil {
			t.Fatalf("%s %s: %v", tc.format, tc.pattern, err)
		}
		if got := string(identifiers.KeyShapes(c)); got != tc.want {
			t.Errorf("format %q pattern %q max %d: shapes %q, want %q", tc.format, tc.pattern, tc.maxLen, got, tc.want)
		}
	}
}

// A pattern is served by the first format whose keys match it.
func TestKeyPatternPicksAFormat(t *testing.T) {
	for pattern, want := range map[string]model.IDFormat{
		`.+`:  model.IDAny,
		`\w+`: model.IDWord,
		`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`: model.IDUUID,
	} {
		c := model.DefaultContract()
		c.KeyPattern = pattern
		if got := identifiers.KeyFormatOf(c); got != want {
			t.Errorf("key_pattern %s: format %s, want %s", pattern, got, want)
		}
	}
	// A tenant in lower case only: the plain keys are the same in any and
	// dns-label, tenants are not.
	c := model.DefaultContract()
	c.TenantPattern = `[a-z0-9-]+`
	if got := identifiers.TenantFormatOf(c); got != model.IDDNSLabel {
		t.Errorf("tenant_pattern [a-z0-9-]+: format %s, want dns-label", got)
	}
}

// What the contract cannot serve is an error that names the field.
func TestIdentifierFieldsRefused(t *testing.T) {
	for _, tc := range []struct {
		set  func(*model.Contract)
		want string
	}{
		{func(c *model.Contract) { c.KeyFormat = "ulid" }, "key_format"},
		{func(c *model.Contract) { c.KeyFormat, c.KeyPattern = model.IDUUID, `.+` }, "key_format and key_pattern"},
		{func(c *model.Contract) { c.KeyPattern = `(?!x)\w+` }, "key_pattern"},
		{func(c *model.Contract) { c.KeyPattern = `[A-Z]{10}` }, "key_pattern"},
		{func(c *model.Contract) { c.TenantPattern = `acct_[0-9]+` }, "tenant_pattern"},
		{func(c *model.Contract) { c.Tenants, c.TenantFormat = []string{"a"}, model.IDWord }, "tenants"},
		{func(c *model.Contract) { c.Tenants = []string{"a", "a"} }, "tenants[1]"},
		{func(c *model.Contract) { c.TagFormat = model.IDUUID }, "tag_format"},
	} {
		c := model.DefaultContract()
		tc.set(&c)
		err := identifiers.Validate(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one naming %s", c, err, tc.want)
		}
	}
}

// Generated tenants in a format, and fixed ones, map back.
func TestTenantsRoundTrip(t *testing.T) {
	ns := model.Namespace("is4d980a21-3-")
	for f, re := range formatRE {
		c := model.DefaultContract()
		c.TenantFormat = f
		for _, tenant := range []string{"A", "B", "Z"} {
			sent := identifiers.SentTenant(c, ns, tenant)
			prefix, ok := identifiers.TenantPrefix(c, ns)
			if !re.MatchString(sent) || !ok || !strings.HasPrefix(sent, prefix) {
				t.Errorf("%s: SentTenant(%q) = %q: not in the format or not under %q", f, tenant, sent, prefix)
			}
			if back, ok := identifiers.LogicalTenant(c, ns, sent); !ok || back != tenant {
				t.Errorf("%s: LogicalTenant(%q) = %q, %v; want %q", f, sent, back, ok, tenant)
			}
		}
	}
	c := model.DefaultContract()
	c.Tenants = []string{"acct_1", "acct_2"}
	if got := identifiers.SentTenant(c, ns, "B"); got != "acct_2" {
		t.Errorf("fixed tenant B sent as %q, want acct_2", got)
	}
	if back, ok := identifiers.LogicalTenant(c, ns, "acct_1"); !ok || back != "A" {
		t.Errorf("LogicalTenant(acct_1) = %q, %v; want A", back, ok)
	}
	if _, ok := identifiers.LogicalTenant(c, ns, "acct_3"); ok {
		t.Error("a tenant that is none of the fixed ones read as ours")
	}
	if _, ok := identifiers.TenantPrefix(c, ns); ok {
		t.Error("fixed tenants carry no namespace, but TenantPrefix gave one")
	}
}

// A tag in a DNS-label or \w field is in that alphabet and parses back,
// also inside a longer value.
func TestTagFormats(t *testing.T) {
	ns := model.Namespace("is4d980a21-12-")
	calls := []model.Call{{Tenant: "A", Key: "k1"}, {Tenant: "C", Key: "k3l"}, {Tenant: "K", Key: "k2"}, {Tenant: "B", NoKey: true}, {Tenant: "K", NoKey: true}}
	for _, tc := range []struct {
		format model.IDFormat
		re     *regexp.Regexp
		around [2]string
	}{
		{model.IDDNSLabel, formatRE[model.IDDNSLabel], [2]string{"", "-web"}},
		{model.IDWord, formatRE[model.IDWord], [2]string{"x_", ""}},
	} {
		for _, scope := range []model.KeyScope{model.KeyScopeTenant, model.KeyScopeGlobal} {
			c := model.DefaultContract()
			c.TagFormat, c.KeyScope = tc.format, scope
			for _, call := range calls {
				tag := identifiers.Tag(ns, c, call)
				a := c.ActionOf(call)
				if call.NoKey {
					a.Key = ""
				}
				if !tc.re.MatchString(tag) || !strings.HasPrefix(tag, identifiers.TagPrefix(c, ns)) {
					t.Errorf("%s: tag %q of %v: not in the format, or not under %q", tc.format, tag, call, identifiers.TagPrefix(c, ns))
				}
				for _, s := range []string{tag, tc.around[0] + tag + tc.around[1]} {
					tenant, key, ok := identifiers.ParseTag(c, ns, s)
					if !ok || tenant != a.Tenant || key != a.Key {
						t.Errorf("%s %s: ParseTag(%q) = %q, %q, %v; want %v", tc.format, scope, s, tenant, key, ok, a)
					}
				}
			}
		}
	}
}

// The run's UUID prefix is a prefix of its plans': a run's rows are
// found by it (the baseline), as every run's are by "is"'s.
func TestUUIDPrefixes(t *testing.T) {
	c := model.DefaultContract()
	c.KeyFormat = model.IDUUID
	var sent []string
	for _, ns := range []model.Namespace{"is4d980a21-1-", "is4d980a21-11-", "is4d980a21-2-"} {
		sent = append(sent, identifiers.SentKey(c, ns, "k1"))
	}
	for _, p := range []model.Namespace{"is", "is4d980a21-"} {
		for _, s := range sent {
			if !strings.HasPrefix(s, identifiers.KeyPrefix(c, p)) {
				t.Errorf("key %q is not under %q's prefix %q", s, p, identifiers.KeyPrefix(c, p))
			}
		}
	}
	// Plan 1's prefix is no prefix of plan 11's keys.
	if strings.HasPrefix(sent[1], identifiers.KeyPrefix(c, "is4d980a21-1-")) {
		t.Errorf("plan 11's key %q is under plan 1's prefix %q", sent[1], identifiers.KeyPrefix(c, "is4d980a21-1-"))
	}
	if sorted := slices.Sorted(slices.Values(sent)); len(slices.Compact(sorted)) != 3 {
		t.Errorf("keys of three namespaces: %q", sent)
	}
	if identifiers.NamespaceFits(c, "is4d980a21-123456-") != true || identifiers.NamespaceFits(c, "averyverylongname4d980a21-123456-") {
		t.Error("NamespaceFits does not tell a run's namespace from one too long for a UUID")
	}
}
