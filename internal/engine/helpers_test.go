package engine

import "github.com/idemstress/idemstress/internal/testbed/plantest"

// The plans of these tests are written with internal/testbed/plantest.
var (
	c1          = plantest.Call
	seqOf       = plantest.Seq
	burstOf     = plantest.Burst
	restartStep = plantest.Restart
	planOf      = plantest.Plan
	one         = plantest.One
)
