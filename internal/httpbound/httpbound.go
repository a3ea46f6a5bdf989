// Package httpbound reads HTTP answers with their status line and headers
// bounded, on every path idemstress reads an answer that is not through
// net/http's client (a burst's own connections, the fault proxy): a
// service that answers 64 MiB of headers must not make the tester hold
// them.
package httpbound

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
)

// MaxHeader bounds the status line and headers of an answer; the
// single-call path sets it as its Transport's MaxResponseHeaderBytes.
const MaxHeader = 1 << 20

// errHeaderTooLarge marks an answer refused for headers beyond MaxHeader.
var errHeaderTooLarge = errors.New("answer headers larger than 1 MiB")

// ReadResponse reads an answer to req from r, as http.ReadResponse does,
// with its status line and headers bounded by MaxHeader. The body is read
// from r unbounded: read it through a limit.
func ReadResponse(r io.Reader, req *http.Request) (*http.Response, error) {
	lr := &io.LimitedReader{R: r, N: MaxHeader}
	resp, err := http.ReadResponse(bufio.NewReader(lr), req)
	if err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("%w (the service sent more): %w", errHeaderTooLarge, err)
		}
		return nil, err
	}
	lr.N = math.MaxInt64 // the headers are read: the body's reader bounds it
	return resp, nil
}
