package regress

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/redact"
	"github.com/idemstress/idemstress/stress"
)

// version is the version of the case file format this package writes.
// version 2 moved what changes from run to run (seed, observed detail,
// violations, versions) into last_seen; Read still reads version 1.
const version = 2

// Case is one regression case: a failure's minimal plan and what it broke,
// enough to run it again. Every field but LastSeen identifies the case and
// is the same each time the same bug is found with the same plan; LastSeen
// is what the last run that found it saw. The package documentation
// describes each field.
type Case struct {
	Version        int        `json:"version"`
	Name           string     `json:"name"`
	Check          CaseCheck  `json:"check"`
	Plan           model.Plan `json:"plan"`
	PlanText       string     `json:"plan_text"`
	ContractDigest string     `json:"contract_digest"`
	// Hunt is how the run that found the case hunted, which Run repeats;
	// nil (a file written before it was recorded) replays under the
	// contract's settings.
	Hunt *Hunt `json:"hunt,omitempty"`
	// NotMinimal says the run's shrinking ran out of budget: Plan is the
	// smallest failing plan it found, not a minimal one.
	NotMinimal bool     `json:"not_minimal,omitempty"`
	LastSeen   Sighting `json:"last_seen"`
	// Path is the file the case was read from or written to.
	Path string `json:"-"`
}

// CaseCheck is the primary check of a case: what the contract expects, and
// which rule the failing run broke, for which logical action.
type CaseCheck struct {
	ID       checks.ID    `json:"id"`
	Name     string       `json:"name"`
	Message  string       `json:"message"`
	Expected string       `json:"expected"`
	Action   model.Action `json:"action"`
}

// Sighting is what the run that last found a case saw and what it ran on:
// ids, seeds and versions that differ from one run to the next, kept apart
// so that finding the same case again changes nothing else in its file.
type Sighting struct {
	Seed uint64 `json:"seed"`
	// Observed is what the run saw instead of what the check expects: the
	// primary violation's detail.
	Observed   string             `json:"observed"`
	Violations []checks.Violation `json:"violations"`
	Idemstress string             `json:"idemstress_version"`
	Go         string             `json:"go_version"`
}

// FromFailure makes the case of one failure of a run of cfg with the given
// seed (stress.Result.Seed). Its check is the failure's own (Check), or
// else its primary violation;
// a failure without one (none comes from stress.Run) gives a case that
// Load refuses.
func FromFailure(cfg stress.Config, seed uint64, f *stress.Failure) Case {
	var v checks.Violation
	if len(f.Violations) > 0 {
		v = f.Violations[0]
	}
	// The bug's own check, where a more severe one of another bug fired too.
	if i := slices.IndexFunc(f.Violations, func(w checks.Violation) bool { return w.Check == f.Check }); i >= 0 {
		v = f.Violations[i]
	}
	// A case file is committed and shared: no password in it, as on
	// stdout, and no 200 KB line of the service's output (model.CutLines;
	// the violations' JSON cuts theirs).
	violations := slices.Clone(f.Violations)
	for i := range violations {
		violations[i].Message, violations[i].Detail = redact.String(violations[i].Message), redact.String(violations[i].Detail)
	}
	shown := func(s string) string { return model.CutLines(redact.String(s)) }
	name := string(v.Check)
	if c, _ := checks.Lookup(v.Check); c.Name != "" {
		name = c.Name
	}
	hunt := huntOf(cfg.Spec)
	c := Case{
		Version:        version,
		Check:          CaseCheck{ID: v.Check, Name: name, Message: shown(v.Message), Expected: expected(v.Check), Action: v.Action},
		Plan:           f.Plan,
		PlanText:       f.Plan.Compact(),
		ContractDigest: cfg.Digest(),
		Hunt:           &hunt,
		NotMinimal:     f.NotMinimal,
		LastSeen: Sighting{Seed: seed, Observed: shown(v.Detail), Violations: violations,
			Idemstress: idemstressVersion(), Go: runtime.Version()},
	}
	c.Name = fmt.Sprintf("%s-%s", v.Check, planDigest(f.Plan)[:8])
	return c
}

// expected says what the contract promises where a check fires: that what
// the check finds does not happen.
func expected(id checks.ID) string {
	if c, _ := checks.Lookup(id); c.Name != "" {
		return fmt.Sprintf("never: %s (%s %s stays silent)", c.Finds, c.ID, c.Name)
	}
	return fmt.Sprintf("%s stays silent", id)
}

// planDigest is the hex SHA-256 of the plan's JSON.
func planDigest(p model.Plan) string {
	b, _ := json.Marshal(p) // a plan is plain data: it always encodes
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
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
