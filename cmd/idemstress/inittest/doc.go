// Package inittest holds the end-to-end tests of idemstress init: the
// command, built as users install it, drafts a contract for a service the
// tests wrote no contract for (the ticket sample without an OpenAPI
// document, the payments sample from its openapi.yaml), and the draft,
// unedited, passes doctor and 100 plans of run on the correct service and
// catches a planted bug. They live apart from package main's tests, whose
// binary is near go test's ten minutes on a loaded machine.
package inittest
