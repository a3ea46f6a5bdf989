// Package google holds idemstress's end-to-end test (a binary of its own)
// against a Google-like service: a UUID requestId in the query, lowercase
// project IDs, an Operation answer whose body changes between calls but
// names the same instance, and a changed body under a used requestId
// answered as the original (no fingerprint, AIP-155 and Compute Engine).
// The service is correct by that public semantics and has planted bugs;
// its contract is testdata/contract.yaml, which docs/apis.md shows. The
// harness is internal/testbed/apitest.
package google
