// Package apitest is the harness of idemstress's end-to-end tests against
// services written the way four well-known APIs document their
// idempotency (stress/apis/google, stress/apis/aws, stress/apis/kube,
// stress/apis/graphql, a test binary each): a database and a loopback
// server for a service, its contract read from the package's
// testdata/contract.yaml, a run, and the assertions that a correct service
// passes with every planned fault fired and that a planted bug is one
// row, of its check, minimal; plain HTTP requests, to show a service right
// before idemstress judges it. A top-of-stack test harness, like
// internal/testbed/stresstest.
package apitest
