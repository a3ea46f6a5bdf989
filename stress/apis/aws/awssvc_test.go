package aws_test

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/idemstress/idemstress/internal/testbed/apitest"
)

// awsSvc is an AWS-JSON-protocol service (awsJson1_1): POST / with
// X-Amz-Target ThingService.CreateThing, the caller's account named by the
// access key in its Authorization header (only the accounts it has), and
// a ClientToken in the body that must match \w+ (ACM's IdempotencyToken
// rule), 1 to 64 characters (EC2's). The body is decoded strictly, as the
// AWS SDKs' shapes are: unknown members refused, integers only. A retry
// with the same token and the same parameters gets the original Thing; the
// same token with other parameters is 400 IdempotentParameterMismatch.
// Errors name their type in __type. The token's row is inserted first
// (unique per account): a concurrent duplicate waits on it, then reads it.
type awsSvc struct {
	pool *pgxpool.Pool
	// bug plants one mistake: check-then-insert (looks the token up, then
	// inserts, with no constraint), tenant-leak (tokens unique across
	// accounts: another account's retry gets the first account's Thing),
	// fingerprint-ignores-field (the parameters compared leave Size out,
	// so a changed Size is answered as the original).
	bug string
}

const awsSchema = `CREATE TABLE accounts (access_key text PRIMARY KEY, account_id text NOT NULL);
INSERT INTO accounts VALUES ('AKIAIOSFODNN7EXAMPLE', '111122223333'), ('AKIAI44QH8DHBEXAMPLE', '444455556666'),
	('AKIAJ7D2Q4ZRTEXAMPLE', '777788889999');
CREATE TABLE things (
	thing_id text PRIMARY KEY,
	account_id text NOT NULL,
	access_key text NOT NULL, -- who created it, as CloudTrail records
	client_token text NOT NULL,
	name text NOT NULL,
	size bigint NOT NULL
)`

// awsKeys is the uniqueness each mode keeps (check-then-insert has none).
var awsKeys = map[string]string{"": "account_id, client_token", "tenant-leak": "client_token", "fingerprint-ignores-field": "account_id, client_token"}

// startAWS serves an awsSvc in mode bug over a new database and returns
// its base URL, its database URL and a pool over it.
func startAWS(t *testing.T, bug string) (string, string, *pgxpool.Pool) {
	t.Helper()
	schema := awsSchema
	if cols, ok := awsKeys[bug]; ok {
		schema += fmt.Sprintf(";\nCREATE UNIQUE INDEX things_token ON things (%s)", cols)
	}
	pool, dbURL := apitest.Database(t, cluster, schema)
	return apitest.Serve(t, &awsSvc{pool: pool, bug: bug}), dbURL, pool
}

var (
	clientToken = regexp.MustCompile(`^\w{1,64}$`)
	// The access key of an AWS Signature Version 4 Authorization header.
	credential = regexp.MustCompile(`^AWS4-HMAC-SHA256 Credential=([^/, ]+)/`)
)

// caller is who signed a request: an access key of an account.
type caller struct{ accessKey, account string }

// createThing is the operation's input shape.
type createThing struct {
	ClientToken *string `json:"ClientToken"`
	Name        string  `json:"Name"`
	Size        int64   `json:"Size"`
}

func (s *awsSvc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/" || r.Header.Get("X-Amz-Target") != "ThingService.CreateThing" {
		awsError(w, http.StatusBadRequest, "UnknownOperationException", "")
		return
	}
	ctx := r.Context()
	var caller caller
	m := credential.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil || s.pool.QueryRow(ctx, `SELECT access_key, account_id FROM accounts WHERE access_key = $1`, m[1]).Scan(&caller.accessKey, &caller.account) != nil {
		awsError(w, http.StatusBadRequest, "UnrecognizedClientException", "The security token included in the request is invalid.")
		return
	}
	var in createThing
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		awsError(w, http.StatusBadRequest, "SerializationException", err.Error())
		return
	}
	if msg := in.invalid(); msg != "" {
		awsError(w, http.StatusBadRequest, "ValidationException", msg)
		return
	}
	id, stored, err := s.create(r, caller, in)
	switch {
	case err != nil:
		awsError(w, http.StatusInternalServerError, "InternalFailure", err.Error())
	case !s.same(stored, in):
		awsError(w, http.StatusBadRequest, "IdempotentParameterMismatch",
			"The client token you have provided is associated with a resource that is already created with different parameters.")
	default:
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		_ = json.NewEncoder(w).Encode(map[string]string{"ThingId": id, "ThingArn": "arn:aws:thing:us-east-1:" + caller.account + ":thing/" + id})
	}
}

func (in createThing) invalid() string {
	switch {
	case in.ClientToken == nil:
		return "1 validation error detected: Value null at 'clientToken' failed to satisfy constraint: Member must not be null"
	case !clientToken.MatchString(*in.ClientToken):
		return fmt.Sprintf("1 validation error detected: Value '%s' at 'clientToken' failed to satisfy constraint: Member must satisfy regular expression pattern: \\w+ and length 1-64", *in.ClientToken)
	case in.Name == "" || len(in.Name) > 64:
		return "1 validation error detected: Value at 'name' failed to satisfy constraint: Member must have length between 1 and 64"
	case in.Size < 1 || in.Size > 16:
		return fmt.Sprintf("1 validation error detected: Value '%d' at 'size' failed to satisfy constraint: Member must have value between 1 and 16", in.Size)
	}
	return ""
}

// same reports whether a stored Thing was made with the parameters of in.
func (s *awsSvc) same(stored, in createThing) bool {
	if s.bug == "fingerprint-ignores-field" {
		return stored.Name == in.Name
	}
	return stored.Name == in.Name && stored.Size == in.Size
}

// create makes the Thing unless the token already made one, and returns
// its ID and the parameters it was made with.
func (s *awsSvc) create(r *http.Request, caller caller, in createThing) (string, createThing, error) {
	ctx := r.Context()
	var id string
	var stored createThing
	lookup := func() error {
		q, args := `SELECT thing_id, name, size FROM things WHERE account_id = $1 AND client_token = $2`, []any{caller.account, *in.ClientToken}
		if s.bug == "tenant-leak" {
			q, args = `SELECT thing_id, name, size FROM things WHERE client_token = $1`, []any{*in.ClientToken}
		}
		return s.pool.QueryRow(ctx, q, args...).Scan(&id, &stored.Name, &stored.Size)
	}
	if s.bug == "check-then-insert" {
		if err := lookup(); !errors.Is(err, pgx.ErrNoRows) {
			return id, stored, err
		}
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	err := s.pool.QueryRow(ctx, `INSERT INTO things (thing_id, account_id, access_key, client_token, name, size) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT DO NOTHING RETURNING thing_id`, "thing-"+hex.EncodeToString(b[:]), caller.account, caller.accessKey, *in.ClientToken, in.Name, in.Size).Scan(&id)
	if err == nil {
		return id, in, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return id, stored, err
	}
	return id, stored, lookup()
}

// awsError answers an error of the AWS JSON protocol.
func awsError(w http.ResponseWriter, code int, typ, message string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", typ)
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]string{"__type": typ, "message": message})
}
