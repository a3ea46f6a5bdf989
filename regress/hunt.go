package regress

import (
	"fmt"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/contract"
)

// Hunt is how the run that found a case hunted: settings outside the
// contract's promise (ContractDigest leaves them out) that a bug may need
// in order to show, as an in-process lock holds on one replica and breaks
// on two. Run replays a case under its Hunt, whatever the contract it is
// given says about them; set a case's Hunt (nil: the contract's settings)
// to replay it otherwise.
type Hunt struct {
	// Replicas is how many replicas of the service idemstress started
	// (process.replicas); 0 when it started none.
	Replicas int `json:"replicas"`
	// Sync is how bursts were released.
	Sync client.SyncMode `json:"sync"`
	// DBStall is the effect table held write-locked while bursts were
	// released (the db-stall nemesis); "" for none.
	DBStall string `json:"db_stall"`
}

// huntOf is how a run of contract s hunts: with Hunt.apply, the one place
// that knows which of the Spec's fields are the hunt's.
func huntOf(s contract.Spec) Hunt {
	h := Hunt{Sync: s.Sync, DBStall: s.DBStall}
	if h.Sync == "" {
		h.Sync = client.LastByte
	}
	if s.Process != nil {
		h.Replicas = max(s.Process.Replicas, 1)
	}
	return h
}

// apply sets h on s (its process section copied, not changed in place)
// and says what of h it could not apply.
func (h Hunt) apply(s *contract.Spec) (warning string) {
	s.Sync, s.DBStall = h.Sync, h.DBStall
	switch {
	case h.Replicas > 0 && s.Process != nil:
		p := *s.Process
		p.Replicas = h.Replicas
		s.Process = &p
	case h.Replicas > 1:
		warning = fmt.Sprintf("the case was found on %d replicas that idemstress started; this contract has no process section, so it replays against the target as it runs", h.Replicas)
	}
	return warning
}
