// Package stress runs plans against a target, records what happened, asks
// checks for a verdict, and drives rapid to find and shrink a failing plan.
package stress

import (
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/model"
	"github.com/idemstress/idemstress/observe"
	"github.com/idemstress/idemstress/process"
)

// Config is the one description of a run: what a contract file says (Load
// reads one into it), how hard to look, and, for Go callers, what to use
// instead of what the file would start. The CLI and a go test user run the
// same Config through Run or Check.
type Config struct {
	// HTTP is how a call reaches the service: the contract's target.
	HTTP client.HTTPSpec
	// Contract is what the service promises: statuses, payload,
	// equivalence, key scope.
	Contract model.Contract
	// Effects are the tables one action writes.
	Effects []observe.Effect
	// DatabaseURL is where the effect tables are. Empty with Process set:
	// a throwaway PostgreSQL is started and its URL handed to the service.
	DatabaseURL string
	// Process, when set, is how idemstress starts the service itself (and
	// its replicas); calls then go to what was started.
	Process *process.Spec
	// Sync is how a burst is released (default client.LastByte).
	Sync client.SyncMode
	// DBStall names an effect table to hold write-locked while each burst
	// is released (the db-stall nemesis); "" for none.
	DBStall string
	// StallWait bounds how long the nemesis waits for a burst's requests to
	// block or be answered (0: fault.DefaultStallWait). A burst that does
	// not get there is inconclusive.
	StallWait time.Duration

	// World bounds what plans are drawn from (zero: gen.DefaultWorld). The
	// contract's key_required is World.KeyRequired.
	World gen.World
	// Plans is how many plans to try before calling it a pass (default 100).
	Plans int
	// Seed makes a run repeatable; 0 draws one (the result says which).
	Seed uint64
	// ShrinkTime bounds the search for a smaller failing plan (default 30s).
	ShrinkTime time.Duration

	// Target, when set, is used instead of an HTTP target built from HTTP:
	// a client.Func for a service in the same process, or a client.HTTP of
	// your own.
	Target client.Target
	// DB, when set, reads the effect tables instead of a pool opened from
	// DatabaseURL. It is not closed by the run.
	DB *pgxpool.Pool
	// Log receives one line for each thing the run starts (a throwaway
	// database, replicas); nil discards them.
	Log io.Writer
}

// defaults fills what was left unset and refuses what cannot run, before
// anything is started.
func (c *Config) defaults() error {
	if c.Target == nil && c.HTTP.URL == "" {
		return fmt.Errorf("%w: no target: set target.url in the contract (Config.HTTP.URL) or Config.Target", ErrContract)
	}
	if err := observe.ValidateEffects(c.Effects); err != nil {
		return fmt.Errorf("%w: %w", ErrContract, err)
	}
	if c.World.IsZero() {
		c.World = gen.DefaultWorld()
	}
	// Variants that would be the same payload are one variant: a payload
	// whose only variable field is a two-member enum has two.
	c.World.MaxVariants = max(1, c.Contract.WithDefaults().DistinctVariants(c.World.MaxVariants))
	if err := c.World.Validate(); err != nil {
		return err
	}
	if c.Plans <= 0 {
		c.Plans = 100
	}
	if c.ShrinkTime <= 0 {
		c.ShrinkTime = 30 * time.Second
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	c.Contract = c.Contract.WithDefaults()
	sync, err := client.ParseSyncMode(string(c.Sync))
	if err != nil {
		return fmt.Errorf("%w: %w", ErrContract, err)
	}
	c.Sync = sync
	return nil
}
