// Package stress runs plans against a target, records what happened, asks
// checks for a verdict, and drives rapid to find and shrink a failing plan.
package stress

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/target"
)

// Config is one run: what the target promises, how to reach it, where its
// effects are, and how hard to look.
type Config struct {
	Contract model.Contract
	Effects  []checks.Effect
	Target   target.Target
	// DB reads the effect tables; it never writes.
	DB    *pgxpool.Pool
	World gen.World
	// Plans is how many plans to try before calling it a pass (default 100).
	Plans int
	// Seed makes a run repeatable; 0 draws one (the result says which).
	Seed uint64
	// ShrinkTime bounds the search for a smaller failing plan (default 30s).
	ShrinkTime time.Duration
}

func (c *Config) defaults() error {
	if c.Target == nil {
		return fmt.Errorf("stress: config has no target")
	}
	if c.DB == nil {
		return fmt.Errorf("stress: config has no database to read the effect tables from")
	}
	if err := checks.ValidateEffects(c.Effects); err != nil {
		return err
	}
	if c.World == (gen.World{}) {
		c.World = gen.DefaultWorld()
	}
	if err := c.World.Validate(); err != nil {
		return err
	}
	if c.Plans <= 0 {
		c.Plans = 100
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 30 * time.Second
	}
	if c.Contract.Payload == nil {
		c.Contract.Payload = model.DefaultContract().Payload
	}
	if c.Contract.Equivalence == "" {
		c.Contract.Equivalence = model.EquivalenceCanonicalJSON
	}
	if c.Contract.KeyScope == "" {
		c.Contract.KeyScope = model.KeyScopeTenant
	}
	return nil
}
