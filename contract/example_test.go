package contract_test

import (
	"errors"
	"fmt"

	"github.com/idemstress/idemstress/contract"
)

// Parse reads a contract given as YAML into the Spec it describes; a
// mistake is an ErrContract naming the file and the field.
func ExampleParse() {
	spec, err := contract.Parse("contract.yaml", []byte(`target:
  url: http://127.0.0.1:8080/tickets
  headers: {Idempotency-Key: "{{key}}", X-Tenant: "{{tenant}}"}
  id: /id
payload: {subject: "printer on fire"}
effects:
  - {table: tickets, tenant: tenant, key: idempotency_key}
faults: [lose-reply]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.HTTP.URL, spec.Effects[0].Table, spec.Faults)

	_, err = contract.Parse("bad.yaml", []byte("target: {url: http://127.0.0.1:8080/tickets}\nkey_scope: everywhere\n"))
	fmt.Println(errors.Is(err, contract.ErrContract))
	fmt.Println(err)
	// Output:
	// http://127.0.0.1:8080/tickets tickets [lose-reply]
	// true
	// contract error: bad.yaml: key_scope: "everywhere"; want "tenant" or "global"
}
