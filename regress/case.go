package regress

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/stress"
)

// Version is the version of the case file format this package writes.
const Version = 1

// Case is one regression case: a failure's minimal plan and what it broke,
// enough to run it again. The package documentation describes each field.
type Case struct {
	Version        int                `json:"version"`
	Name           string             `json:"name"`
	Check          Finding            `json:"check"`
	Violations     []checks.Violation `json:"violations"`
	Plan           model.Plan         `json:"plan"`
	PlanText       string             `json:"plan_text"`
	ContractDigest string             `json:"contract_digest"`
	Seed           uint64             `json:"seed"`
	Idemstress     string             `json:"idemstress_version"`
	Go             string             `json:"go_version"`
	// Path is the file the case was read from or written to.
	Path string `json:"-"`
}

// Finding is the primary check of a case: what the contract expects, and
// what the failing run observed instead.
type Finding struct {
	ID       checks.ID    `json:"id"`
	Name     string       `json:"name"`
	Message  string       `json:"message"`
	Expected string       `json:"expected"`
	Observed string       `json:"observed"`
	Action   model.Action `json:"action"`
}

// FromFailure makes the case of one failure of a run of cfg with the given
// seed (stress.Result.Seed). Its check is the failure's primary violation;
// a failure without one (none comes from stress.Run) gives a case that
// Read refuses.
func FromFailure(cfg stress.Config, seed uint64, f *stress.Failure) Case {
	var v checks.Violation
	if len(f.Violations) > 0 {
		v = f.Violations[0]
	}
	// A case file is committed and shared: no password in it, as on stdout.
	violations := slices.Clone(f.Violations)
	for i := range violations {
		violations[i].Message, violations[i].Detail = redact.String(violations[i].Message), redact.String(violations[i].Detail)
	}
	name := string(v.Check)
	for _, c := range checks.Catalogue() {
		if c.ID == v.Check {
			name = c.Name
		}
	}
	c := Case{
		Version: Version,
		Check: Finding{ID: v.Check, Name: name, Message: redact.String(v.Message), Expected: expected(v.Check),
			Observed: redact.String(v.Detail), Action: v.Action},
		Violations:     violations,
		Plan:           f.Plan,
		PlanText:       f.Plan.Compact(),
		ContractDigest: ContractDigest(cfg),
		Seed:           seed,
		Idemstress:     idemstressVersion(),
		Go:             runtime.Version(),
	}
	c.Name = fmt.Sprintf("%s-%s", v.Check, planDigest(f.Plan)[:8])
	return c
}

// expected says what the contract promises where a check fires: that what
// the check finds does not happen.
func expected(id checks.ID) string {
	for _, c := range checks.Catalogue() {
		if c.ID == id {
			return fmt.Sprintf("never: %s (%s %s stays silent)", c.Finds, c.ID, c.Name)
		}
	}
	return fmt.Sprintf("%s stays silent", id)
}

// planDigest is the hex SHA-256 of the plan's JSON.
func planDigest(p model.Plan) string {
	b, _ := json.Marshal(p) // a plan is plain data: it always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ContractDigest is "sha256:" and the hex SHA-256 of the canonical JSON of
// what the contract promises and how it is checked: the contract with its
// defaults (statuses, payload, payload rules, equivalence, key scope, key
// comparison and length, server errors, recovery), key_required, the
// request noise that may be added, the method, header templates and path
// of target.url (not its scheme, host or port, which move between machines
// and runs), the ID pointer, and the effects. How a run hunts (database,
// process, replicas, sync, db-stall, timeouts) is left out: it changes
// where and how hard, not what a case means.
func ContractDigest(cfg stress.Config) string {
	world := cfg.World
	if world.IsZero() {
		world = gen.DefaultWorld()
	}
	noise := slices.Clone(world.Noise)
	slices.Sort(noise)
	path := cfg.HTTP.URL
	if u, err := url.Parse(cfg.HTTP.URL); err == nil {
		path = u.EscapedPath()
		if u.RawQuery != "" {
			path += "?" + u.RawQuery
		}
	}
	method := strings.ToUpper(cfg.HTTP.Method)
	if method == "" {
		method = "POST"
	}
	canonical := struct {
		Method      string
		Path        string
		Headers     map[string]string
		ID          string
		Contract    model.Contract
		KeyRequired bool
		Noise       []model.Noise
		Effects     any
	}{method, path, cfg.HTTP.Headers, cfg.HTTP.ID, cfg.Contract.WithDefaults(), world.KeyRequired, noise, cfg.Effects}
	b, err := json.Marshal(canonical)
	if err != nil {
		// Only a payload that is not JSON could get here, and Load refuses it.
		b = fmt.Appendf(nil, "%#v", canonical)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// idemstressVersion is the version of idemstress in this binary: the main
// module's when it is idemstress (a tag, or "(devel)" and the VCS revision
// of a checkout), else the version the binary depends on.
func idemstressVersion() string {
	const module = "github.com/idemstress/idemstress"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	if bi.Main.Path != module {
		for _, d := range bi.Deps {
			if d.Path == module {
				return d.Version
			}
		}
	}
	v := bi.Main.Version
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			v += " " + s.Value
		}
	}
	if v == "" {
		return "unknown"
	}
	return v
}
