package sample

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/stress"
)

// The event modes: the sample publishing its events to a Redis stream
// that idemstress starts as its dependency and reads as a sink
// (ticketsvc.ContractEvents), instead of calling a webhook.
const (
	// EventRelay is the correct service: its outbox relay adds each
	// event to the stream after the commit, again under the same event
	// ID when an XADD failed.
	EventRelay = "event-relay"
	// EventOnReplay publishes a replayed call's ticket again, as a new
	// event: the service's webhook-on-replay, made on the stream.
	EventOnReplay = "event-on-replay"
)

// eventModes are the event modes, each with the service's -bug and the
// faults it is run with: the correct relay under crashes of the service
// and of its Redis (durable: an entry added stays).
var eventModes = map[string]struct {
	bug    string
	faults []model.Fault
}{
	EventRelay:    {"", []model.Fault{model.FaultCrash, model.FaultCrashAfterCommit, model.FaultRestart, model.FaultDepRestart, model.FaultDepCrash}},
	EventOnReplay: {"webhook-on-replay", nil},
}

// EventModes are the modes run with the event stream: the correct relay,
// then the bug.
func EventModes() []string { return []string{EventRelay, EventOnReplay} }

// EventFaults are the faults an event mode is run with.
func EventFaults(mode string) []model.Fault { return slices.Clone(eventModes[mode].faults) }

// EventConfig is a run of the sample as processes in an event mode, its
// events published to a stream of a durable Redis that idemstress starts
// beside it and reads as the sink events: serve is the command that
// serves it, as for ProcessConfig. It needs redis-server on PATH.
func EventConfig(serve []string, dbURL, mode string) (stress.Config, error) {
	m, ok := eventModes[mode]
	if !ok {
		return stress.Config{}, fmt.Errorf("sample: no event mode %q (modes: %s)", mode, strings.Join(EventModes(), ", "))
	}
	bin := RedisServer()
	if bin == "" {
		return stress.Config{}, fmt.Errorf("sample: mode %s publishes to Redis, and there is no redis-server on PATH: apt-get install -y redis-server", mode)
	}
	cfg, err := stress.Parse("examples/ticketsvc/contract_events.yaml", ticketsvc.ContractEvents)
	if err != nil {
		return stress.Config{}, err
	}
	cfg.Process = &process.Spec{Command: append(slices.Clone(serve), "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}",
		"-bug", m.bug, "-events-redis-url", "{dep.redis.url}"),
		Dependencies: []process.DependencySpec{Redis(bin, true)}}
	cfg.DatabaseURL = dbURL
	cfg.Faults = slices.Clone(m.faults)
	cfg.Contract.Recovery = recovery
	cfg.StallWait = stallWait
	return cfg, nil
}
