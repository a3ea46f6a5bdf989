package stress

import (
	"context"
	"fmt"
	"slices"

	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/sink"
)

// The messages of a Redis sink (model.RedisSink): a stream or a list the
// service publishes to, in a Redis idemstress starts as its dependency.
// They are read from that Redis after each plan, and judged as a
// webhook's deliveries are: the sink's checks see no difference.

// checkRedisSink checks that sink i's Redis is a dependency idemstress
// starts, so that it can read it.
func (c *Config) checkRedisSink(i int, s model.Sink) error {
	dep := s.Redis.Dependency
	if c.Process == nil || !slices.ContainsFunc(c.Process.Dependencies, func(d process.DependencySpec) bool { return d.Name == dep }) {
		var names []string
		if c.Process != nil {
			for _, d := range c.Process.Dependencies {
				names = append(names, d.Name)
			}
		}
		return fmt.Errorf("sinks[%d].redis.dependency (%s): %q is no dependency idemstress starts (process.dependencies: %q); "+
			"declare the Redis the service publishes to there, so that idemstress can read its %s", i, s.Name, dep, names, s.Redis.Kind())
	}
	return nil
}

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
			return fmt.Errorf("%w: sink %s: dependency %s was not started", ErrContract, spec.Name, spec.Redis.Dependency)
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
