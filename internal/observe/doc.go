// Package observe reads what a plan committed: the rows of the contract's
// effect tables inside a namespace, and a fingerprint of everything outside
// it. It is the only package that talks to the service's database, and it
// only reads (one READ ONLY REPEATABLE READ transaction an observation,
// identifiers quoted by pgx). What it reads is plain data of package model
// (model.Snapshot, model.Baseline), which package checks judges.
//
// API index:
//
//   - [NewObserver] and [Observer]: [Observer.Validate] checks the declared
//     tables and columns against information_schema ([ErrSchema]);
//     [Observer.Begin] and [Observer.Observe] read a namespace's rows;
//     [Observer.Baseline] fingerprints the rows outside a run's prefix.
//   - [Observer.Indexes] and [access.IndexAdvice]: the index a contract's
//     reads need on each table (doctor prints them); [Observer.Notes] says
//     which reads fell back to a scan.
//
// How a namespace's rows are found, and what the catalog says about each
// table, is package access: this package runs its queries, keeps the marks
// of where each plan's and run's rows begin, and takes the baseline.
package observe
