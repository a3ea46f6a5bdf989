package bench

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/client"
	"github.com/idemstress/idemstress/internal/model/effect"
)

// memTargetSchema is the one effect table memTarget writes: one row per
// action, its tenant and key in a byte-ordered collation with an index, so
// that observing a plan costs what the plan wrote.
const memTargetSchema = `CREATE TABLE IF NOT EXISTS p6_effects (
	id bigserial PRIMARY KEY,
	tenant text COLLATE "C" NOT NULL,
	request_key text COLLATE "C" NOT NULL);
CREATE INDEX IF NOT EXISTS p6_effects_action ON p6_effects (tenant, request_key)`

// memTargetEffects declares memTarget's table to the tester.
var memTargetEffects = []effect.Effect{{Table: "p6_effects", Tenant: "tenant", Key: "request_key", ID: "id", PerAction: 1}}

// memTarget is a correct idempotent create endpoint in the same process,
// for runs of 10^6 calls in bounded time (P6): no HTTP, and a retry is
// answered from memory; only an action's first call writes, one row in
// PostgreSQL, which the tester observes as usual. It remembers the actions
// of the latest namespace only (plans run one at a time and never share
// one), so that its own memory stays flat and P6 measures the tester's.
type memTarget struct {
	pool  *pgxpool.Pool
	calls atomic.Int64
	mu    sync.Mutex
	ns    string
	// actions maps tenant NUL key to the action's canonical payload and ID.
	actions map[string][2]string
}

func (m *memTarget) Do(ctx context.Context, req client.Request) (client.Response, error) {
	m.calls.Add(1)
	if req.NoKey {
		return client.Response{Status: 400}, nil
	}
	var v any
	if err := json.Unmarshal(req.Body, &v); err != nil {
		return client.Response{Status: 400}, nil
	}
	canon, _ := json.Marshal(v) // map keys sorted, numbers and escapes normalised
	m.mu.Lock()
	defer m.mu.Unlock()
	if ns := req.Tenant[:strings.LastIndexByte(req.Tenant, '-')+1]; ns != m.ns {
		m.ns, m.actions = ns, map[string][2]string{}
	}
	action := req.Tenant + "\x00" + req.Key
	if a, ok := m.actions[action]; ok {
		if a[0] != string(canon) {
			return client.Response{Status: 422}, nil
		}
		return client.Response{Status: 200, ID: a[1]}, nil
	}
	var id int64
	err := m.pool.QueryRow(ctx, `INSERT INTO p6_effects (tenant, request_key) VALUES ($1, $2) RETURNING id`, req.Tenant, req.Key).Scan(&id)
	if err != nil {
		return client.Response{}, err
	}
	m.actions[action] = [2]string{string(canon), strconv.FormatInt(id, 10)}
	return client.Response{Status: 201, ID: strconv.FormatInt(id, 10)}, nil
}
