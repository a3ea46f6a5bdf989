// Package shapes holds idemstress's end-to-end tests against services of
// other shapes than the sample it was built beside: a strictly typed Go
// decoder with the key in a header, the JSON body or a form, Square- and
// GoCardless-like answers told apart by their bodies, and the second
// sample, examples/paysvc, as processes. Each test starts its service on
// loopback over a real throwaway PostgreSQL, sees the correct one pass and
// a planted bug caught. They live apart from package stress's own tests so
// that each test binary stays well inside go test's ten minutes.
package shapes
