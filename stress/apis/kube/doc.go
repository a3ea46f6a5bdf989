// Package kube holds idemstress's end-to-end test (a binary of its own)
// against a Kubernetes-like service: metadata.name as the natural key, a
// DNS-1123 label, namespaces that must exist, 409 Status AlreadyExists.
// The service is correct by that public semantics and has planted bugs;
// its contract is testdata/contract.yaml, which docs/apis.md shows. The
// harness is internal/testbed/apitest.
package kube
