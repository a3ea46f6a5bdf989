// Package aws holds idemstress's end-to-end test (a binary of its own)
// against an AWS-JSON-like service: X-Amz-Target, a \w+ ClientToken in a
// strictly typed JSON body, fixed accounts, 400
// IdempotentParameterMismatch. The service is correct by that public
// semantics and has planted bugs; its contract is testdata/contract.yaml,
// which docs/apis.md shows. The harness is internal/testbed/apitest.
package aws
