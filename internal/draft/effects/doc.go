// Package effects drafts idemstress init's effect tables from what one
// create call wrote to the database: the rows of its transactions, which
// columns hold the tenant, the key and the payload's fields, which rows
// reference which, and where the answer carries the main row's ID. It
// reads the database and makes that one call; the request it sends is
// drafted before (internal/draft/openapi or init's flags), and the YAML is
// written by internal/draft.
package effects
