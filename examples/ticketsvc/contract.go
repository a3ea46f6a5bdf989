package ticketsvc

import _ "embed"

// Contract is the idemstress contract file of this service in its keys
// layout (contract.yaml); its target URL assumes the default -listen address.
//
//go:embed contract.yaml
var Contract []byte

// ContractTagged is the contract for the tagged layout (contract_tagged.yaml):
// rows are attributed by the action tag the payload carries.
//
//go:embed contract_tagged.yaml
var ContractTagged []byte

// ContractWebhook is the contract of the keys layout with the service's
// webhook declared as a sink (contract_webhook.yaml): run the service
// with -webhook-url {sink.webhooks.url}.
//
//go:embed contract_webhook.yaml
var ContractWebhook []byte

// ContractEvents is the contract of the keys layout with the service's
// events published to a Redis stream declared as a sink
// (contract_events.yaml): run the service with -events-redis-url
// {dep.redis.url}, beside the Redis it names.
//
//go:embed contract_events.yaml
var ContractEvents []byte
