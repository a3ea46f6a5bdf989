package stress

import (
	"context"
	"fmt"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/internal/sink"
)

// The messages of a Redis sink (model.RedisSink): a stream or a list the
// service publishes to, in a Redis idemstress starts as its dependency.
// They are read from that Redis after each plan, and judged as a
// webhook's deliveries are: the sink's checks see no difference.

// startRedisSinks opens a reader for each Redis sink, on the Redis the
// service was started with: its own address, not any proxy in front of
// it, so that what the reader sees is what the Redis holds.
func (s *Session) startRedisSinks(ctx context.Context) error {
	for _, spec := range s.cfg.Sinks {
		if spec.Redis == nil {
			continue
		}
		var dep interface{ Addr() string }
		if s.svc != nil {
			if d := s.svc.Dependency(spec.Redis.Dependency); d != nil {
				dep = d
			}
		}
		if dep == nil {
			return fmt.Errorf("%w: sink %s: dependency %s was not started", contract.ErrContract, spec.Name, spec.Redis.Dependency)
		}
		r, err := sink.OpenRedis(ctx, spec, dep.Addr())
		if err != nil {
			return fmt.Errorf("%w: %w", errInfrastructure, err)
		}
		s.closers = append(s.closers, func() { _ = r.Close() })
		s.sinks = append(s.sinks, receiver{spec, r})
	}
	return nil
}
