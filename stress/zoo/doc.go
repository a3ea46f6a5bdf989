// Package zoo holds idemstress's end-to-end tests against the sample
// service's bug zoo: every mode caught by its check with a minimal plan on
// several seeds, and the same diagnosis on every seed. They live apart from
// package stress's own tests so that each test binary stays inside go
// test's ten minutes (the go command kills a binary at its timeout plus a
// minute).
package zoo
