package fault_test

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/idemstress/idemstress/internal/fault"
	"github.com/idemstress/idemstress/internal/fault/dbstall"
	"github.com/idemstress/idemstress/internal/fault/httpproxy"
	"github.com/idemstress/idemstress/internal/model"
	"github.com/idemstress/idemstress/internal/pgproxy"
	"github.com/idemstress/idemstress/internal/respproxy"
	"github.com/idemstress/idemstress/internal/testbed/racedb"
)

// dbEnv is a CallEnv whose calls go to one handler, keyed by the call's
// key, over a database reached through a pgproxy.
type dbEnv struct {
	url   string
	db    *racedb.Proxied
	tied  *pgproxy.Call
	table string
}

func (e *dbEnv) Send(ctx context.Context, call model.Call, _ int, _ map[string]string) (model.Op, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url+"?key="+call.Key, strings.NewReader("{}"))
	op := model.Op{Call: call}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		op.Out = model.Outcome{Kind: model.Unknown, Err: "no answer"}
		return op, nil
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	op.Out = model.Outcome{Kind: model.OK, Status: resp.StatusCode}
	return op, nil
}

func (e *dbEnv) Token() string                              { return "t" }
func (e *dbEnv) Proxy() *httpproxy.Proxy                    { return nil }
func (e *dbEnv) Replicas() fault.Replicas                   { return nil }
func (e *dbEnv) EffectStall() *dbstall.Stall                { return &dbstall.Stall{Table: e.table} }
func (e *dbEnv) KeyStall() *dbstall.Stall                   { return nil }
func (e *dbEnv) Contract() model.Contract                   { return model.Contract{} }
func (e *dbEnv) Dependency(string) (fault.Dependency, bool) { return nil, false }
func (e *dbEnv) DB() *pgproxy.Proxy                         { return e.db.Proxy }
func (e *dbEnv) DBCall() *pgproxy.Call                      { return e.tied }
func (e *dbEnv) DepCall(string) *respproxy.Call             { return nil }

// readOnly looks the key up and answers 200, writing nothing.
func readOnly(db *racedb.Proxied) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		readAll(r.Body)
		var n int
		if err := db.Service.QueryRow(r.Context(), `SELECT count(*) FROM items WHERE key = $1`, r.URL.Query().Get("key")).Scan(&n); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	}
}

// TestDBErrorFiresOnDelivery: db-error through the proxy fires when its
// error reached the call's write to the last effect table (the service
// answers 500 and wrote nothing), and not when the call never wrote
// there, with a note that says so. The error is the one the plan names
// (Call.Point), each of DBErrorCodes, or 57P01 when it names none.
func TestDBErrorFiresOnDelivery(t *testing.T) {
	db := racedb.NewProxied(t, 4)
	type tc struct {
		name    string
		handler http.HandlerFunc
		code    string
		fired   bool
	}
	cases := []tc{{"writes", racedb.KeyFirst(db.Service), "", true}, {"reads only", readOnly(db), "", false}}
	for _, code := range fault.DBErrorCodes {
		cases = append(cases, tc{"writes " + code, racedb.KeyFirst(db.Service), code, true})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			key := "deliver-" + strings.ReplaceAll(c.name, " ", "-")
			env := &dbEnv{url: serve(t, c.handler).URL, db: db, table: "items"}
			env.tied = db.Proxy.Tie(key, []byte(key))
			defer env.tied.Untie()
			call := model.Call{Tenant: "A", Key: key, Fault: model.FaultDBError, Point: c.code}
			if want := cmp.Or(c.code, "57P01"); fault.DBErrorCode(call) != want {
				t.Fatalf("DBErrorCode(%s) = %s, want %s", call, fault.DBErrorCode(call), want)
			}
			out, err := fault.ErrorAtStatement(t.Context(), env, env.tied, call)
			if err != nil {
				t.Fatal(err)
			}
			if out.Fired != c.fired {
				t.Fatalf("fired %v (note %q), want %v", out.Fired, out.Note, c.fired)
			}
			if !c.fired {
				if !strings.Contains(out.Note, "no write of the call to items") {
					t.Errorf("note %q, want it to say no write to items was seen", out.Note)
				}
				return
			}
			if st := out.Ops[0].Out.Status; st != http.StatusInternalServerError {
				t.Errorf("the failed call answered %d, want 500", st)
			}
			if n := db.Count(t, "items", key) + db.Count(t, "uitems", key); n != 0 {
				t.Errorf("%d rows left by the failed call, want 0", n)
			}
			if inj := env.tied.Injected(); len(inj) != 1 || inj[0].Code != fault.DBErrorCode(call) || inj[0].Index != 2 {
				t.Errorf("Injected() = %v, want %s at the call's second statement (its write to items)", inj, fault.DBErrorCode(call))
			}
		})
	}
}
