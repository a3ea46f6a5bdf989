// Package apis holds idemstress's end-to-end tests against four services
// written the way four well-known APIs document their idempotency, each
// correct by that API's public semantics and each with planted bugs:
//
//   - Google-like (google_test.go): a UUID requestId in the query, lowercase
//     project IDs, an Operation answer whose body changes between calls but
//     names the same instance, and a changed body under a used requestId
//     answered as the original (no fingerprint, AIP-155 and Compute Engine);
//   - AWS-JSON-like (aws_test.go): X-Amz-Target, a \w+ ClientToken in a
//     strictly typed JSON body, fixed accounts, 400 IdempotentParameterMismatch;
//   - Kubernetes-like (kube_test.go): metadata.name as the natural key, a
//     DNS-1123 label, namespaces that must exist, 409 Status AlreadyExists;
//   - GraphQL-like (graphql_test.go): every answer 200, errors in
//     errors[0].extensions.code (INTERNAL_SERVER_ERROR for a failed database
//     write, BAD_USER_INPUT not stored under the key), two transactions per
//     call made correct by claiming the key first and compensating a failure;
//     it also runs as a process (process_test.go: the test binary itself,
//     started with APIS_SERVE=graphql), so that restarts and kills apply.
//
// Each service creates its own schema in a real throwaway PostgreSQL and
// serves real HTTP on 127.0.0.1; its contract is inline in its test, and
// docs/apis.md shows the same four. Each test also speaks to its service
// with plain HTTP requests, so that the service itself is shown right
// before idemstress judges it. The runs need the contract fields of issue
// 26 (identifier formats, changed_payload, answers.server_error,
// refusals): a contract whose field the parser does not know skips its
// run, saying which.
package apis
