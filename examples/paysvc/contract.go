package paysvc

import _ "embed"

// Contract is the draft idemstress contract file of this service
// (contract.yaml), for its -key-header X-Request-Id mode; its target URL
// assumes the default -listen address. Its comments mark what needs
// syntax idemstress does not have yet.
//
//go:embed contract.yaml
var Contract []byte

// OpenAPI is the OpenAPI 3 document of the endpoint (openapi.yaml).
//
//go:embed openapi.yaml
var OpenAPI []byte
