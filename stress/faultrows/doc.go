// Package faultrows counts the rows of the sample's bug modes that a fault
// at the service's database work shows, run as processes (db-error,
// crash-at, slow-original, a replica's own exit): one bug, one row. It is
// stress/procrows's other half, a binary of its own so that each stays
// well inside go test's ten minutes.
package faultrows
