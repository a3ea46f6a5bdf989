package pgproxy

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
)

// maxFrame bounds one protocol message; PostgreSQL's own limit for most
// messages is 1 GB, far more than a create endpoint's statements need.
const maxFrame = 64 << 20

// A frame is one whole protocol message after startup: its type byte, its
// length and its body, in a buffer of its own. The proxy relays frames
// byte for byte and decodes (with pgproto3's message types) only those it
// must look at, so authentication of every kind (cleartext, MD5, SCRAM)
// passes through without the proxy knowing its state.
type frame []byte

func (f frame) kind() byte   { return f[0] }
func (f frame) body() []byte { return f[5:] }

// readFrame reads one message from r.
func readFrame(r *bufio.Reader) (frame, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, err
	}
	n := int(binary.BigEndian.Uint32(head[1:]))
	if n < 4 || n > maxFrame {
		return nil, fmt.Errorf("pgproxy: message %q of length %d is out of bounds (4 to %d)", head[0], n, maxFrame)
	}
	f := make(frame, 1+n)
	copy(f, head[:])
	if _, err := io.ReadFull(r, f[5:]); err != nil {
		return nil, err
	}
	return f, nil
}

// encoder is any pgproto3 message.
type encoder interface {
	Encode(dst []byte) ([]byte, error)
}

// encode builds the frame of a message the proxy writes itself.
func encode(msgs ...encoder) (frame, error) {
	var buf []byte
	for _, m := range msgs {
		var err error
		if buf, err = m.Encode(buf); err != nil {
			return nil, fmt.Errorf("pgproxy: encode %T: %w", m, err)
		}
	}
	return buf, nil
}
