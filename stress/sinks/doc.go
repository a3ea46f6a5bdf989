// Package sinks holds end-to-end tests only (a binary of its own): the
// sample service run as processes with its webhook declared as a sink,
// each webhook bug caught with a minimal plan and the correct outbox relay
// passing under crashes and the sink's refusals.
package sinks
