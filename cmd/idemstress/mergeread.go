package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/boundedfile"
)

// maxReport bounds a report file merge reads: a shard's report holds its
// bugs' minimal plans and histories, a few MiB at most.
const maxReport = 64 << 20

// readReports reads and checks the reports merge is given, refusing what
// would merge into a lie: a file that is not a report, reports of
// different targets, and one shard (or one file) given twice.
func readReports(ctx context.Context, names []string) ([]stressReport, error) {
	var reps []stressReport
	shards := map[string]string{} // shard → file
	digests := map[[32]byte]string{}
	for _, name := range names {
		b, err := boundedfile.Read(ctx, name, maxReport, "a report of stress --json")
		if err != nil {
			return nil, err
		}
		rep, err := decodeReport(b)
		if err != nil {
			return nil, fmt.Errorf("%s: not a report of stress --json: %w", name, err)
		}
		sum := sha256.Sum256(b)
		if first, ok := digests[sum]; ok {
			return nil, fmt.Errorf("%s: the same report as %s; give each shard's report once, or its counts are added twice", name, first)
		}
		digests[sum] = name
		for _, s := range rep.Shards {
			if first, ok := shards[s]; ok {
				return nil, fmt.Errorf("%s: shard %s is in %s too; give each shard's report once, or its counts are added twice", name, s, first)
			}
			shards[s] = name
		}
		if len(reps) > 0 && !sameTarget(reps[0].Target, rep.Target) {
			return nil, fmt.Errorf("%s: a report of target %q, %s one of %q; merge the shards of one job, which share a target", name, rep.Target, names[0], reps[0].Target)
		}
		reps = append(reps, rep)
	}
	if err := oneJob(shards); err != nil {
		return nil, err
	}
	return reps, nil
}

// decodeReport decodes one report and checks what merge relies on: known
// verdicts and checks, and counts that are not negative.
func decodeReport(b []byte) (stressReport, error) {
	var rep stressReport
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&rep); err != nil {
		return rep, err
	}
	if dec.More() {
		return rep, errors.New("more than one JSON value")
	}
	if err := knownVerdict(rep.Verdict); err != nil {
		return rep, err
	}
	if rep.Plans < 0 || rep.Executions < 0 || rep.Calls < 0 || rep.FaultsFired < 0 || rep.Seconds < 0 {
		return rep, errors.New("a negative count or time")
	}
	if len(rep.Cases) == 0 {
		return rep, errors.New("no cases (a report has one case at least)")
	}
	known := func(id checks.ID) bool { c, _ := checks.Lookup(id); return c.Name != "" }
	if err := knownStatuses(rep.CheckStatus, known); err != nil {
		return rep, err
	}
	for i, c := range rep.Cases {
		if err := knownVerdict(c.Verdict); err != nil {
			return rep, fmt.Errorf("case %d: %w", i+1, err)
		}
		if err := knownStatuses(c.CheckStatus, known); err != nil {
			return rep, fmt.Errorf("case %d: %w", i+1, err)
		}
		for _, id := range c.Checks {
			if !known(id) {
				return rep, fmt.Errorf("case %d: check %q is not in the catalogue (IDEM-001 to IDEM-%03d)", i+1, id, len(checks.Catalogue()))
			}
		}
		if c.Verdict == checks.Fail && rep.Verdict != checks.Fail {
			return rep, fmt.Errorf("case %d fails, the report's verdict is %q", i+1, rep.Verdict)
		}
	}
	return rep, nil
}

// knownStatuses refuses a check_status naming a check outside the
// catalogue, or a status merge does not know: either merged as passed.
func knownStatuses(m map[checks.ID]checks.Status, known func(checks.ID) bool) error {
	for _, id := range slices.Sorted(maps.Keys(m)) {
		if !known(id) {
			return fmt.Errorf("check_status: check %q is not in the catalogue (IDEM-001 to IDEM-%03d)", id, len(checks.Catalogue()))
		}
		switch st := m[id]; st {
		case checks.Failed, checks.Passed, checks.NotExercised, checks.Undecided:
		default:
			return fmt.Errorf("check_status: %s is %q; want %q, %q, %q or %q", id, st, checks.Failed, checks.Passed, checks.NotExercised, checks.Undecided)
		}
	}
	return nil
}

func knownVerdict(v checks.Verdict) error {
	if v != checks.Pass && v != checks.Fail && v != checks.Inconclusive {
		return fmt.Errorf("verdict %q; want %q, %q or %q", v, checks.Pass, checks.Fail, checks.Inconclusive)
	}
	return nil
}

// sameTarget reports whether two reports' targets are one: equal, or
// replicas each shard started itself on loopback (their ports differ).
func sameTarget(a, b string) bool {
	return a == b || (loopbackOnly(a) && loopbackOnly(b))
}

// loopbackOnly reports whether a target is a list of loopback addresses,
// the replicas a run started (a URL on loopback is a service the user
// runs, and its port says which).
func loopbackOnly(target string) bool {
	for _, addr := range strings.Split(target, ",") {
		if u, err := url.Parse(addr); err == nil && u.Host != "" {
			return false
		}
		host, _, err := net.SplitHostPort(addr)
		if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
			return false
		}
	}
	return true
}

// oneJob refuses shards of jobs split different ways ("0/2" and "1/4").
func oneJob(shards map[string]string) error {
	var ways []string
	for s := range shards {
		_, n, _ := strings.Cut(s, "/")
		if !slices.Contains(ways, n) {
			ways = append(ways, n)
		}
	}
	if len(ways) > 1 {
		slices.Sort(ways)
		return fmt.Errorf("shards of jobs split %s ways: merge the shards of one job", strings.Join(ways, " and "))
	}
	return nil
}
