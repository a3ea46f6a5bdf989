package paysvc

import _ "embed"

// Contract is the idemstress contract file of this service (contract.yaml):
// the key in the JSON body, a reused and a missing key both 400, told apart
// by errors[0].code. Its target URL assumes the default -listen address.
//
//go:embed contract.yaml
var Contract []byte

// ContractRequestID is the contract of the -key-header X-Request-Id mode
// (contract_request_id.yaml): the key in that header instead.
//
//go:embed contract_request_id.yaml
var ContractRequestID []byte

// openAPI is the OpenAPI 3 document of the endpoint (openapi.yaml).
//
//go:embed openapi.yaml
var openAPI []byte
