package shrink

import (
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/testbed/plantest"
)

// The plans of these tests are written with internal/testbed/plantest.
var (
	c1          = plantest.Call
	callOf      = plantest.Single
	seqOf       = plantest.Seq
	burstOf     = plantest.Burst
	restartStep = plantest.Restart
	planOf      = plantest.Plan
	one         = plantest.One
)

// a1 is tenant A's call with key k1 and the base payload.
var a1 = model.Call{Tenant: "A", Key: "k1"}
