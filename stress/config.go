// Package stress runs plans against a target, records what happened, asks
// checks for a verdict, and drives rapid to find and shrink a failing plan.
package stress

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/fault"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/observe"
)

// Config is one run: what the target promises, how to reach it, where its
// effects are, and how hard to look.
type Config struct {
	Contract model.Contract
	Effects  []observe.Effect
	Target   client.Target
	// DB reads the effect tables; it never writes.
	DB    *pgxpool.Pool
	World gen.World
	// Plans is how many plans to try before calling it a pass (default 100).
	Plans int
	// Seed makes a run repeatable; 0 draws one (the result says which).
	Seed uint64
	// ShrinkTime bounds the search for a smaller failing plan (default 30s).
	ShrinkTime time.Duration
	// Sync is how an HTTP target releases a burst (default client.LastByte).
	Sync client.SyncMode
	// DBStall names an effect table to hold write-locked while each burst
	// is released (the db-stall nemesis); "" for none.
	DBStall string
	// StallWait bounds how long the nemesis waits for a burst's requests
	// to block or be answered (default 1s; on loopback they take
	// milliseconds). A burst that does not get there is inconclusive.
	StallWait time.Duration
}

// executor is the Executor of a run: the target with its burst release,
// and the nemesis, checked before any call.
func (c *Config) executor(ctx context.Context) (Executor, error) {
	e := Executor{Target: c.Target, Contract: c.Contract}
	if h, ok := c.Target.(*client.HTTP); ok {
		e.Target = h.WithSync(c.Sync)
	}
	if c.DBStall != "" {
		stall := &fault.Stall{Pool: c.DB, Table: c.DBStall, Wait: c.StallWait}
		if err := stall.Check(ctx); err != nil {
			return Executor{}, fmt.Errorf("%w: %w", ErrContract, err)
		}
		e.Stall = stall
	}
	return e, nil
}

func (c *Config) defaults() error {
	if c.Target == nil {
		return fmt.Errorf("stress: config has no target")
	}
	if c.DB == nil {
		return fmt.Errorf("stress: config has no database to read the effect tables from")
	}
	if err := observe.ValidateEffects(c.Effects); err != nil {
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
	if c.StallWait <= 0 {
		c.StallWait = time.Second
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 30 * time.Second
	}
	c.Contract = c.Contract.WithDefaults()
	_, err := client.ParseSyncMode(string(c.Sync))
	return err
}
