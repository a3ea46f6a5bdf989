// Package contract reads and checks the contract file: the YAML that says
// what a service promises for its create calls, where it is, what one
// action writes and which faults plans may carry (docs/contract.md). Load
// and Parse give a Spec; stress runs one as its Config's Spec, and a Go
// caller may fill one in and have it checked by the same rules (Validate).
package contract
