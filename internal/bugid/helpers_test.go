package bugid

import (
	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/plantest"
)

// The plans of these tests are written with internal/testbed/plantest.
var (
	c1          = plantest.Call
	seqOf       = plantest.Seq
	burstOf     = plantest.Burst
	restartStep = plantest.Restart
	planOf      = plantest.Plan
	one         = plantest.One
)

func viol(id checks.ID, tenant, key, msg string) checks.Violation {
	return checks.Violation{Check: id, Message: string(id) + " " + msg, Action: model.Action{Tenant: tenant, Key: key}}
}
