// Package fault is idemstress's nemesis: how the calls of a plan are
// released and what goes wrong around them. Burst releases a set of HTTP
// requests at the same instant (last-byte synchronisation); Stall holds an
// effect table locked while a burst arrives, so that every request reaches
// its write before any of them commits and a check-then-insert race happens
// every time instead of now and then.
//
// The package knows nothing of plans or contracts: it sends *http.Request
// values and locks tables by name.
package fault
