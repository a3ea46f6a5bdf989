package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/idemstress/idemstress/client"
)

type ctxKey struct{}

func TestFunc(t *testing.T) {
	boom := errors.New("boom")
	var tgt client.Target = client.Func(func(ctx context.Context, req client.Request) (client.Response, error) {
		if ctx.Value(ctxKey{}) != "from caller" {
			return client.Response{}, errors.New("context not passed through")
		}
		if req.NoKey {
			return client.Response{}, boom
		}
		return client.Response{Status: 201, ID: req.Tenant + "/" + req.Key, Body: req.Body}, nil
	})
	ctx := context.WithValue(context.Background(), ctxKey{}, "from caller")

	resp, err := tgt.Do(ctx, client.Request{Tenant: "A", Key: "k1", Body: []byte(`{}`)})
	if err != nil || resp.Status != 201 || resp.ID != "A/k1" || string(resp.Body) != `{}` {
		t.Errorf("Do = %+v, %v; want 201 with ID A/k1", resp, err)
	}
	if _, err := tgt.Do(ctx, client.Request{Tenant: "A", NoKey: true}); !errors.Is(err, boom) {
		t.Errorf("Do error = %v, want the function's error", err)
	}
}

// A Go function serves as a target for services that run in-process.
func ExampleFunc() {
	ids := map[string]string{}
	tgt := client.Func(func(ctx context.Context, req client.Request) (client.Response, error) {
		if req.NoKey {
			return client.Response{Status: 400}, nil
		}
		k := req.Tenant + "\x00" + req.Key
		if _, ok := ids[k]; !ok {
			ids[k] = fmt.Sprint(len(ids) + 1)
		}
		return client.Response{Status: 201, ID: ids[k]}, nil
	})
	for _, req := range []client.Request{{Tenant: "A", Key: "k1"}, {Tenant: "A", Key: "k1"}, {Tenant: "B", Key: "k1"}, {Tenant: "B", NoKey: true}} {
		resp, _ := tgt.Do(context.Background(), req)
		fmt.Println(resp.Status, resp.ID)
	}
	// Output:
	// 201 1
	// 201 1
	// 201 2
	// 400
}
