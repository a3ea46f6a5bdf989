// Package deps holds idemstress's end-to-end tests of dependencies the
// tester starts beside the service and faults (process.dependencies): the
// sample's keys-in-redis modes as processes over a real Redis, behind the
// RESP proxy, and a real throwaway PostgreSQL. The one without
// persistence is caught with a minimal plan holding the Redis's restart
// or crash, the durable one (its record written before the commit) with
// a crash point between the two stores, at Redis's point or the
// database's; the reservation design passes every fault kind and every
// crash point of both stores. They live in a test binary of their own so
// that each stays well inside go test's ten minutes.
package deps
