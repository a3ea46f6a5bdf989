// Package process names what a Go caller gives stress.Config's Process:
// how idemstress starts the service's replicas ([Spec]), what it starts
// beside them ([DependencySpec]) and how it knows one is ready
// ([ReadyCheck]). Each is an alias of the type internal/process defines,
// where starting, restarting, crashing and pausing the replicas live.
package process

import p "github.com/idemstress/idemstress/internal/process"

type (
	Spec           = p.Spec
	DependencySpec = p.DependencySpec
	ReadyCheck     = p.ReadyCheck
)
