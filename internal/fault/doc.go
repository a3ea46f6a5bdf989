// Package fault is idemstress's nemesis: what goes wrong around the calls
// of a plan, on purpose. Stall holds an effect table locked while a burst
// arrives, so that every request reaches its write before any of them
// commits and a check-then-insert race happens every time instead of now
// and then.
//
// The package knows nothing of plans or contracts: it locks tables by name
// and runs whatever burst it is given while it holds the lock. How the
// calls themselves are sent and released is package client's.
package fault
