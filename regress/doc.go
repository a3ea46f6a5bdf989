// Package regress saves each failure idemstress finds as a regression case
// file and replays such files against a target, from the command line
// (idemstress replay) or inside go test (Replay).
//
// # The case file
//
// A case is one JSON object (see Case), written by Write as NAME.json where
// NAME is the primary check and the first 8 hex digits of the plan's
// SHA-256 ("IDEM-004-3fa9c1d2"), so the same bug with the same minimal
// plan is one file however often it is found. Every field but last_seen
// is the same each time the case is found again; last_seen holds what
// differs from run to run (ids, seed, versions), so a committed case file
// changes only there. Its fields:
//
//   - version: the format's version, Version (2). A reader refuses a newer
//     one and reads an older one; fields are only ever added within a
//     version. Version 1 had last_seen's fields at the top level (and
//     observed in check).
//   - name: the file's name without .json.
//   - check: the primary check: id, name, message (the check's fixed
//     message), expected (what the contract promises, from the check
//     catalogue) and the logical action.
//   - plan: the shrunk plan as model.Plan JSON. Tenants and keys are
//     logical ("A", "k1"): replay gives them a fresh namespace, so the case
//     does not depend on the layout of the tables or on earlier runs.
//   - plan_text: the same plan in idemstress's notation, for people.
//   - contract_digest: "sha256:" and the hex SHA-256 of the canonical
//     contract (contract.Spec.Digest). Replaying under another contract is
//     allowed, with a warning: the case may no longer mean what it did.
//   - hunt: how the run that found it hunted, settings the digest leaves
//     out but a bug may need to show (see Hunt): replicas (of the service
//     idemstress started; 0 for none), sync ("lastbyte" or "naive") and
//     db_stall (the table write-locked while bursts were released; "" for
//     none). Run replays a case under them whatever the contract says;
//     the replay command's --replicas, --sync and --db-stall override
//     them. Optional: a file without it (written before it was recorded)
//     replays under the contract's settings.
//   - not_minimal: true when the run's shrinking ran out of budget before
//     the plan was minimal: plan is the smallest failing plan it found,
//     kept rather than dropped. Optional (false when absent).
//   - last_seen: the run that last found it: seed, observed (what it saw
//     instead: the primary violation's detail), violations (every
//     violation of that run, checks.Violation), idemstress_version and
//     go_version (runtime/debug.ReadBuildInfo, runtime.Version).
//
// # Replay
//
// A replay runs a case's plan in a namespace of its own against the target,
// under the case's hunt, and judges it like a run does. It fails when the recorded check fires
// again, and passes when it does not (other checks that fire are reported
// beside it). A plan is run up to AttemptsFor times (attempts; racyAttempts
// for a plan with a burst under a db-stall, which forces the race;
// timedAttempts, within timedBudget or the Config's Duration, for one
// with a burst and no stall, whose race is left to timing), stopping when
// the check fires: a race does not go the failing way every time, and a
// correct service never fires it.
//
// read refuses a file of more than 16 MiB, and a case that would pass
// unheard: a check outside the catalogue, a call or burst step without
// calls, a restart step with calls, a step or fault of an unknown kind.
package regress
