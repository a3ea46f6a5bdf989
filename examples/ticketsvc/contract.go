package ticketsvc

import _ "embed"

// Contract is the idemstress contract file of this service (contract.yaml);
// its target URL assumes the default -listen address.
//
//go:embed contract.yaml
var Contract []byte
