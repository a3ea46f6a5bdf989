// Package sample starts the sample service (examples/ticketsvc) in-process
// on a loopback port, in one of its modes, over a database of its own, and
// says what idemstress should find there. The demo and the integration
// tests share it.
package sample

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/checks"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/gen"
	"github.com/idemstress/idemstress/stress"
	"github.com/idemstress/idemstress/target"
)

// Correct is the name of the sample service's correct mode.
const Correct = "correct"

// Expected is the check that must catch each bug mode, as its primary finding.
var Expected = map[string]checks.ID{
	"outbox-on-retry":  checks.DuplicateEffect,
	"no-payload-check": checks.ChangedAccepted,
	"global-keys":      checks.TenantLeak,
	// A re-encoded retry answered 422: the equivalent payload was rejected.
	"raw-body-fingerprint": checks.EqualRejected,
}

// Layouts are the sample service's schema layouts: key columns in every
// effect table, or the key kept only in the service's own table and rows
// attributed by the action tag.
func Layouts() []ticketsvc.Layout { return ticketsvc.Layouts() }

// Modes lists the correct mode, then every bug mode.
func Modes() []string { return append([]string{Correct}, ticketsvc.Bugs()...) }

// Service is a running sample service.
type Service struct {
	Mode     string
	Layout   ticketsvc.Layout
	URL      string // http://127.0.0.1:PORT/tickets
	Pool     *pgxpool.Pool
	Contract *stress.Contract
	srv      *http.Server
	served   chan error
}

// Start migrates the database at dbURL to the layout and serves the sample
// service in the given mode on a free loopback port.
func Start(ctx context.Context, dbURL, mode string, layout ticketsvc.Layout) (_ *Service, err error) {
	bug := mode
	if mode == Correct {
		bug = ""
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, fmt.Errorf("sample: database URL: %w", err)
	}
	defer func() {
		if err != nil {
			pool.Close()
		}
	}()
	if err := ticketsvc.Migrate(ctx, pool, layout); err != nil {
		return nil, err
	}
	svc, err := ticketsvc.New(pool, ticketsvc.Options{Bug: bug, Layout: layout})
	if err != nil {
		return nil, err
	}
	contract, err := Contract(layout)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("sample: listening on loopback: %w", err)
	}
	s := &Service{Mode: mode, Layout: layout, URL: "http://" + ln.Addr().String() + "/tickets", Pool: pool, Contract: contract,
		srv: &http.Server{Handler: svc, ReadHeaderTimeout: 10 * time.Second}, served: make(chan error, 1)}
	s.Contract.Target.URL = s.URL
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// Contract is the sample service's contract for a layout.
func Contract(layout ticketsvc.Layout) (*stress.Contract, error) {
	if layout == ticketsvc.LayoutTagged {
		return stress.ParseContract("examples/ticketsvc/contract_tagged.yaml", ticketsvc.ContractTagged)
	}
	return stress.ParseContract("examples/ticketsvc/contract.yaml", ticketsvc.Contract)
}

// Config is a stress configuration that tests this service with its
// contract: plans random plans, seed 0 for a random one.
func (s *Service) Config(plans int, seed uint64) (stress.Config, error) {
	tgt, err := target.NewHTTP(s.Contract.Target, nil)
	if err != nil {
		return stress.Config{}, err
	}
	world := gen.DefaultWorld()
	world.KeyRequired = s.Contract.KeyRequired
	return stress.Config{Contract: s.Contract.Model, Effects: s.Contract.Effects, Target: tgt, DB: s.Pool,
		World: world, Plans: plans, Seed: seed}, nil
}

// Close stops the server, waits for it, and closes the pool.
func (s *Service) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	<-s.served
	s.Pool.Close()
}
