package sample

import (
	"fmt"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/stress"
)

// webhookFaults are the planned faults of each webhook mode: the crash
// that shows the mistake, and for the correct outbox relay both crashes
// (the sink's own faults, a 500 on each action's first attempt, are in
// the contract and fire in every mode).
var webhookFaults = map[string][]model.Fault{
	WebhookRelay:            {model.FaultCrash, model.FaultCrashAfterCommit, model.FaultRestart},
	"webhook-on-replay":     nil,
	"new-event-id-on-retry": nil,
	"webhook-before-commit": {model.FaultCrash},
	"webhook-lost-on-crash": {model.FaultCrashAfterCommit},
	// Sent after the last write, right before the COMMIT: only a crash
	// held at that point shows it.
	ticketsvc.WebhookAtCommit: {model.FaultCrashAt},
}

// WebhookFaults are the faults a webhook mode is run with.
func WebhookFaults(mode string) []model.Fault { return slices.Clone(webhookFaults[mode]) }

// WebhookRelay is the correct service run with its webhook: its outbox
// relay (a row of its own in the demo, beside correct).
const WebhookRelay = "webhook-relay"

// WebhookModes are the modes run with the webhook: the correct relay, then
// each webhook bug.
func WebhookModes() []string { return slices.Concat([]string{WebhookRelay}, ticketsvc.WebhookBugs()) }

// IsWebhook reports whether a mode is run with the webhook (WebhookConfig).
func IsWebhook(mode string) bool { return slices.Contains(WebhookModes(), mode) }

// WebhookConfig is a run of the sample as processes in one mode, with its
// webhook declared as a sink (ticketsvc.ContractWebhook): serve is the
// command that serves it, as for ProcessConfig; idemstress hands each
// replica the sink's URL.
func WebhookConfig(serve []string, dbURL, mode string) (stress.Config, error) {
	cfg, err := stress.Parse("examples/ticketsvc/contract_webhook.yaml", ticketsvc.ContractWebhook)
	if err != nil {
		return stress.Config{}, err
	}
	if !IsWebhook(mode) && mode != ticketsvc.WebhookAtCommit {
		return stress.Config{}, fmt.Errorf("sample: no webhook mode %q (modes: %s)", mode, strings.Join(WebhookModes(), ", "))
	}
	bug := mode
	if mode == WebhookRelay {
		bug = ""
	}
	cfg.Process = &process.Spec{Command: append(slices.Clone(serve), "-listen", "127.0.0.1:{port}", "-database-url", "{database_url}",
		"-bug", bug, "-webhook-url", "{sink.webhooks.url}/hooks")}
	cfg.DatabaseURL = dbURL
	cfg.Faults = slices.Clone(webhookFaults[mode])
	cfg.Contract.Recovery = recovery
	cfg.StallWait = stallWait
	return cfg, nil
}
