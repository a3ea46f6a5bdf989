// Package regress saves each failure idemstress finds as a regression case
// file and replays such files against a target, from the command line
// (idemstress replay) or inside go test (Replay).
//
// # The case file
//
// A case is one JSON object (see Case), written by Write as NAME.json where
// NAME is the primary check and the first 8 hex digits of the plan's
// SHA-256 ("IDEM-004-3fa9c1d2"), so the same bug with the same minimal
// plan is one file however often it is found. Its fields:
//
//   - version: the format's version, Version (1). A reader refuses a newer
//     one; fields are only ever added within a version.
//   - name: the file's name without .json.
//   - check: the primary check: id, name, message (the check's fixed
//     message), expected (what the contract promises, from the check
//     catalogue), observed (what the failing run saw: the violation's
//     detail) and the logical action.
//   - violations: every violation of the failing run (checks.Violation).
//   - plan: the shrunk plan as model.Plan JSON. Tenants and keys are
//     logical ("A", "k1"): replay gives them a fresh namespace, so the case
//     does not depend on the layout of the tables or on earlier runs.
//   - plan_text: the same plan in idemstress's notation, for people.
//   - contract_digest: "sha256:" and the hex SHA-256 of the canonical
//     contract (see ContractDigest). Replaying under another contract is
//     allowed, with a warning: the case may no longer mean what it did.
//   - seed: the seed of the run that found it.
//   - idemstress_version, go_version: what found it
//     (runtime/debug.ReadBuildInfo, runtime.Version).
//
// # Replay
//
// A replay runs a case's plan in a namespace of its own against the target
// and judges it like a run does. It fails when the recorded check fires
// again, and passes when it does not (other checks that fire are reported
// beside it). A plan is run up to Attempts times, stopping when the check
// fires: a race does not go the failing way every time, and a correct
// service never fires it.
package regress
