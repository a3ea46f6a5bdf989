// Package deps holds idemstress's end-to-end tests of dependencies the
// tester starts beside the service and faults (process.dependencies): the
// sample's keys-in-redis modes as processes over a real Redis and a real
// throwaway PostgreSQL, the one without persistence caught with a minimal
// plan holding the Redis's restart or crash, the durable one passing
// every fault kind. They live in a test binary of their own so that each
// stays well inside go test's ten minutes.
package deps
