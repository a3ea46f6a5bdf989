// Package graphql holds idemstress's end-to-end tests (a binary of their
// own) against a GraphQL-like service: every answer 200, errors in
// errors[0].extensions.code (INTERNAL_SERVER_ERROR for a failed database
// write, BAD_USER_INPUT not stored under the key), two transactions per
// call made correct by claiming the key first and compensating a failure.
// It also runs as a process (process_test.go: the test binary itself,
// started with APIS_SERVE=graphql), so that restarts and kills apply. The
// service is correct by that public semantics and has planted bugs; its
// contract is testdata/contract.yaml, which docs/apis.md shows. The
// harness is internal/testbed/apitest.
package graphql
