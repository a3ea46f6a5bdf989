package regress_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/regress"
)

// caseJSON is a version 2 case file with the given check and plan steps.
func caseJSON(check, steps string) []byte {
	return []byte(`{"version": 2, "name": "x", "check": {"id": "` + check + `"}, "plan": {"steps": ` + steps + `}}`)
}

const (
	oneCall = `{"kind": "call", "calls": [{"tenant": "A", "key": "k1"}]}`
	restart = `{"kind": "restart"}`
	crash   = `{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "crash"}]}`
	burst   = `{"kind": "burst", "calls": [{"tenant": "A", "key": "k1"}, {"tenant": "A", "key": "k1", "encoding": 1}]}`
)

// The case files run writes for restart and crash bugs replay; a case that
// would pass unheard (a check nobody knows, a step that sends nothing, a
// kind this idemstress does not know) is refused with what to fix.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name string
		file []byte
		want string // "" to accept
	}{
		{"call", caseJSON("IDEM-004", "["+oneCall+"]"), ""},
		{"restart between calls (memory-keys)", caseJSON("IDEM-001", "["+oneCall+","+restart+","+oneCall+"]"), ""},
		{"crash then restart (non-atomic)", caseJSON("IDEM-002", "["+crash+","+restart+","+oneCall+"]"), ""},
		{"burst", caseJSON("IDEM-001", "["+burst+"]"), ""},
		{"unknown check", caseJSON("IDEM-999", "["+oneCall+"]"), `check "IDEM-999" is not in this idemstress's catalogue`},
		{"call step without a call", caseJSON("IDEM-001", `[{"kind": "call"}]`), "step 1 of the plan (call) has no call"},
		{"restart only", caseJSON("IDEM-001", "["+restart+"]"), "the plan has no call"},
		{"restart with calls", caseJSON("IDEM-001", `[{"kind": "restart", "calls": [{"tenant": "A", "key": "k1"}]}]`), "a restart has none"},
		{"unknown kind", caseJSON("IDEM-001", `[{"kind": "explode", "calls": [{"tenant": "A", "key": "k1"}]}]`), `kind "explode"`},
		{"unknown fault", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "meteor"}]}]`), `fault "meteor"`},
		{"a dependency restarted between calls (keys-in-redis)", caseJSON("IDEM-001", "["+oneCall+`,{"kind": "fault", "fault": "dep-restart", "target": "redis"},`+oneCall+"]"), ""},
		{"a fault step of a call's fault", caseJSON("IDEM-001", "["+oneCall+`,{"kind": "fault", "fault": "lose-reply", "target": "redis"}]`), `fault step "lose-reply"`},
		{"a fault step that names nothing", caseJSON("IDEM-001", "["+oneCall+`,{"kind": "fault", "fault": "dep-crash"}]`), "names what it acts on"},
		{"a call carrying a step's fault", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "dep-crash"}]}]`), `fault "dep-crash" of a call`},
		{"a crash at a point (effects-tx-first)", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "crash-at", "point": "after tx 1"}]},`+restart+","+oneCall+"]"), ""},
		{"a crash at no point", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "crash-at"}]}]`), `point ""`},
		{"a crash at an unknown point", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "crash-at", "point": "during tx 1"}]}]`), `point "during tx 1"`},
		{"a point without crash-at", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "crash", "point": "after tx 1"}]}]`), "without a fault that lands at one"},
		{"a db-error that names its failure (stores-errors)", caseJSON("IDEM-016", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "db-error", "point": "40001"}]},`+oneCall+"]"), ""},
		{"a db-error that names none (57P01, as before)", caseJSON("IDEM-016", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "db-error"}]},`+oneCall+"]"), ""},
		{"a db-error of an unknown failure", caseJSON("IDEM-016", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "db-error", "point": "23505"}]}]`), `db-error failure "23505"`},
		{"a dep-error at a dependency (keys-in-redis-fail-open)", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "dep-error", "point": "redis OOM"}]},`+oneCall+"]"), ""},
		{"a dep-error that names no dependency", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "dep-error", "point": "OOM"}]}]`), `dep-error failure "OOM"`},
		{"a dep-error of an unknown failure", caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "dep-error", "point": "redis NOAUTH"}]}]`), `dep-error failure "redis NOAUTH"`},
		{"newer format", []byte(`{"version": 99}`), "upgrade idemstress"},
		{"not JSON", []byte("\x00"), "not a case file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := regress.Decode("case.json", tc.file)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one with %q", err, tc.want)
			case err == nil && c.PlanText == "":
				t.Fatalf("accepted without a plan text: %+v", c)
			}
		})
	}
}

// A plan with a burst races: a replay tries it more often before it calls
// the case passed, and far more often when no db-stall forces the race.
func TestAttemptsFor(t *testing.T) {
	stalled, timed := regress.Hunt{DBStall: "tickets"}, regress.Hunt{}
	for _, tc := range []struct {
		steps string
		hunt  regress.Hunt
		want  int
	}{
		{"[" + oneCall + "," + restart + "," + oneCall + "]", stalled, regress.Attempts},
		{"[" + oneCall + "," + restart + "," + oneCall + "]", timed, regress.Attempts},
		{"[" + oneCall + "," + burst + "]", stalled, regress.RacyAttempts},
		{"[" + oneCall + "," + burst + "]", timed, regress.TimedAttempts},
	} {
		c, err := regress.Decode("case.json", caseJSON("IDEM-001", tc.steps))
		if err != nil {
			t.Fatal(err)
		}
		if got := regress.AttemptsFor(c.Plan, tc.hunt); got != tc.want {
			t.Errorf("AttemptsFor(%s, %+v) = %d, want %d", c.PlanText, tc.hunt, got, tc.want)
		}
	}
	if regress.RacyAttempts <= regress.Attempts || regress.TimedAttempts <= regress.RacyAttempts {
		t.Errorf("Attempts %d, RacyAttempts %d, TimedAttempts %d: want each more than the one before", regress.Attempts, regress.RacyAttempts, regress.TimedAttempts)
	}
}

// FuzzDecode: no case file, however broken, makes the decoder panic; one
// it accepts has a plan that sends something, and encodes again.
func FuzzDecode(f *testing.F) {
	for _, seed := range [][]byte{
		caseJSON("IDEM-004", "["+oneCall+"]"),
		caseJSON("IDEM-001", "["+oneCall+","+restart+","+oneCall+"]"),
		caseJSON("IDEM-002", "["+crash+","+burst+"]"),
		caseJSON("IDEM-016", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "db-error", "point": "08006"}]},`+oneCall+"]"),
		caseJSON("IDEM-001", `[{"kind": "call", "calls": [{"tenant": "A", "key": "k1", "fault": "dep-error", "point": "redis cut"}]},`+oneCall+"]"),
		[]byte(`{"version": 1, "check": {"id": "IDEM-001", "observed": "x"}, "seed": 3, "plan": {"steps": [` + oneCall + `]}}`),
		[]byte(`{"version": 2, "plan": null}`),
		[]byte(`[]`),
		[]byte(``),
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := regress.Decode("fuzz.json", b)
		if err != nil {
			return
		}
		if c.Plan.NumCalls() == 0 {
			t.Fatalf("accepted a plan without calls: %s", b)
		}
		if _, err := json.Marshal(c); err != nil {
			t.Fatalf("an accepted case does not encode: %v", err)
		}
	})
}
