package sample

import (
	"slices"
	"strings"
	"testing"
)

// Every webhook mode has its run: the contract with the sink, the sink's
// URL handed to the service, and for each bug the check that names it.
func TestWebhookConfig(t *testing.T) {
	for _, mode := range WebhookModes() {
		cfg, err := WebhookConfig([]string{"ticketsvc"}, "postgres://127.0.0.1/x", mode)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if len(cfg.Sinks) != 1 || !slices.Contains(cfg.Process.Command, cfg.Sinks[0].Placeholder()+"/hooks") {
			t.Errorf("%s: sinks %v, command %q: want the webhook sink's URL handed to the service", mode, cfg.Sinks, cfg.Process.Command)
		}
		if _, bug := Expected[mode]; bug == (mode == WebhookRelay) || Passes(mode) != (mode == WebhookRelay) {
			t.Errorf("%s: expected check %q", mode, Expected[mode])
		}
		if !strings.Contains(strings.Join(cfg.Process.Command, " "), "-bug "+strings.TrimPrefix(mode, WebhookRelay)) {
			t.Errorf("%s: command %q", mode, cfg.Process.Command)
		}
	}
	if _, err := WebhookConfig([]string{"ticketsvc"}, "postgres://127.0.0.1/x", Correct); err == nil {
		t.Error("a mode without the webhook got a webhook run")
	}
}
