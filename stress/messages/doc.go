// Package messages holds end-to-end tests only (a binary of its own): the
// sample service run as processes publishing its events to a Redis stream
// that idemstress starts beside it and reads as a sink, the correct outbox
// relay passing under crashes of the service and of the Redis, and a
// replay that publishes again caught with a minimal plan.
package messages
