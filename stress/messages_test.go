package stress_test

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/idemstress/idemstress/contract"
	"github.com/idemstress/idemstress/examples/ticketsvc"
	"github.com/idemstress/idemstress/internal/model/effect"
	"github.com/idemstress/idemstress/stress"
)

// redisProcess is a process section with a Redis dependency, to which a
// test adds a Redis sink.
const redisProcess = `process:
  command: [svc, -listen, "127.0.0.1:{port}", -redis, "{dep.redis.url}"]
  dependencies: [{name: redis, command: [redis-server, --port, "{port}"]}]
`

// A Redis sink declared wrong is a contract error that says what to write.
func TestRedisSinkMistakesRefused(t *testing.T) {
	for _, tc := range []struct{ process, sink, want string }{
		{redisProcess, "{name: ev, key: /k, redis: {stream: s}}", "redis.dependency (ev): missing"},
		{redisProcess, "{name: ev, key: /k, redis: {dependency: redis}}", "give exactly one of stream or list"},
		{redisProcess, "{name: ev, key: /k, redis: {dependency: redis, stream: s, list: l}}", "give exactly one of stream or list"},
		{redisProcess, "{name: ev, key: /k, redis: {dependency: redis, list: l, field: data}}", "only a stream entry has fields"},
		{redisProcess, "{name: ev, key: /k, redis: {dependency: redis, stream: s, field: /data}}", "not a JSON pointer"},
		{redisProcess, "{name: ev, key: /k, faults: [500], redis: {dependency: redis, stream: s}}", "fault the Redis itself with dep-restart or dep-crash"},
		{redisProcess, "{name: ev, key: /k, addr: 127.0.0.1:9, redis: {dependency: redis, stream: s}}", "a Redis sink listens on nothing"},
		{redisProcess, "{name: ev, key: /k, redis: {dependency: cache, stream: s}}", `"cache" is no dependency idemstress starts (process.dependencies: ["redis"])`},
		{"", "{name: ev, key: /k, redis: {dependency: redis, stream: s}}", `"redis" is no dependency idemstress starts`},
		{redisProcess, "{name: ev, redis: {dependency: redis, stream: s}}", "give exactly one of tag or key"},
	} {
		_, err := stress.Parse("c.yaml", []byte(sinkBase+tc.process+"sinks:\n  - "+tc.sink+"\n"))
		if !errors.Is(err, contract.ErrContract) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a contract error with %q", tc.sink, err, tc.want)
		}
	}
	if _, err := stress.Parse("c.yaml", []byte(sinkBase+redisProcess+"sinks:\n  - {name: ev, key: /k, redis: {dependency: redis, list: l}}\n")); err != nil {
		t.Errorf("a list sink of a declared Redis: %v", err)
	}
}

// The sample's contract with its event stream reads as a Redis sink.
func TestContractEventsReadsAsARedisSink(t *testing.T) {
	cfg, err := stress.Parse("contract_events.yaml", ticketsvc.ContractEvents)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Sinks) != 1 || cfg.Sinks[0].Redis == nil || cfg.Sinks[0].Redis.Stream != "tickets:events" || cfg.Sinks[0].Redis.Dependency != "redis" {
		t.Errorf("sinks %+v: want the stream tickets:events of dependency redis", cfg.Sinks)
	}
}

// docs/contract.md's example of messages in Redis is a complete contract,
// read as it says.
func TestContractDocRedisSinkExample(t *testing.T) {
	doc, err := os.ReadFile("../docs/contract.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	start := strings.Index(text, "### Messages in Redis")
	if start < 0 {
		t.Fatal(`docs/contract.md has no "### Messages in Redis" section`)
	}
	block := text[start:]
	block = block[strings.Index(block, "```yaml\n")+len("```yaml\n"):]
	block = block[:strings.Index(block, "```")]
	cfg, err := stress.Parse("docs/contract.md", []byte(block))
	if err != nil {
		t.Fatal(err)
	}
	want := effect.RedisSink{Dependency: "redis", Stream: "tickets:events"}
	if len(cfg.Sinks) != 1 || cfg.Sinks[0].Redis == nil || *cfg.Sinks[0].Redis != want || cfg.Sinks[0].Mode() != effect.AtLeastOnce ||
		cfg.Sinks[0].Within() != 2*time.Second || cfg.Sinks[0].Fields["/subject"] != "/subject" {
		t.Errorf("sinks read as %+v, want the stream %+v, at-least-once within 2s", cfg.Sinks, want)
	}
	if len(cfg.Process.Dependencies) != 1 || cfg.Process.Dependencies[0].Name != "redis" {
		t.Errorf("dependencies %+v, want redis", cfg.Process.Dependencies)
	}
}
