package respproxy

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Bounds on what the proxy reads: Redis's own limit on a bulk string is
// 512 MB (proto-max-bulk-len), on a command's arguments 1024*1024 for an
// inline one; a key store's replies to a create endpoint are far smaller.
const (
	maxBulk  = 512 << 20
	maxItems = 1 << 24
	maxDepth = 64
)

// errProtocol: what was read is not RESP.
var errProtocol = errors.New("respproxy: not RESP")

// command is one command of the client's, as read: its bytes (relayed as
// they are) and its arguments, the name first.
type command struct {
	raw  []byte
	args [][]byte
}

// name is the command's name in upper case ("SET"), "" for none.
func (c command) name() string { return string(bytes.ToUpper(c.arg(0))) }

func (c command) arg(i int) []byte {
	if i < len(c.args) {
		return c.args[i]
	}
	return nil
}

// readCommand reads one command: an array of bulk strings, as every
// client library sends, or an inline command (a line of words, as a
// person types into telnet). Empty inline lines are skipped, as Redis
// skips them.
func readCommand(r *bufio.Reader) (command, error) {
	for {
		line, err := readLine(r)
		if err != nil {
			return command{}, err
		}
		if len(line) > 2 && line[0] == '*' {
			return readMultiBulk(r, line)
		}
		args := bytes.Fields(line)
		if len(args) == 0 {
			continue
		}
		return command{raw: line, args: args}, nil
	}
}

// readMultiBulk reads the arguments of a command whose first line head
// ("*3\r\n") was read.
func readMultiBulk(r *bufio.Reader, head []byte) (command, error) {
	n, err := length(head)
	if err != nil || n < 0 || n > maxItems {
		return command{}, fmt.Errorf("%w: command header %q", errProtocol, trim(head))
	}
	raw := bytes.Clone(head)
	offs := make([][2]int, 0, n)
	for range n {
		line, err := readLine(r)
		if err != nil {
			return command{}, err
		}
		if line[0] != '$' {
			return command{}, fmt.Errorf("%w: a command's argument %q is not a bulk string", errProtocol, trim(line))
		}
		size, err := length(line)
		if err != nil || size < 0 || size > maxBulk {
			return command{}, fmt.Errorf("%w: argument length %q", errProtocol, trim(line))
		}
		raw = append(raw, line...)
		start := len(raw)
		if raw, err = readN(r, raw, size+2); err != nil {
			return command{}, err
		}
		offs = append(offs, [2]int{start, start + size})
	}
	args := make([][]byte, len(offs))
	for i, o := range offs {
		args[i] = raw[o[0]:o[1]:o[1]]
	}
	return command{raw: raw, args: args}, nil
}

// reply is one whole reply of the server's, as read, and whether it is a
// push (RESP3 '>': an out-of-band message that answers no command).
type reply struct {
	raw  []byte
	push bool
	err  bool // a simple or blob error
}

// readReply reads one value of RESP2 or RESP3, with the attribute that
// may precede it ('|'), nested aggregates and streamed strings and
// aggregates ("$?", "*?") included.
func readReply(r *bufio.Reader) (reply, error) {
	var v reader
	v.r = r
	first, err := v.value(0)
	if err != nil {
		return reply{}, err
	}
	if first == '|' { // an attribute: the reply it annotates follows
		if first, err = v.value(0); err != nil {
			return reply{}, err
		}
	}
	return reply{raw: v.buf, push: first == '>', err: first == '-' || first == '!'}, nil
}

// reader accumulates one reply's bytes.
type reader struct {
	r   *bufio.Reader
	buf []byte
}

// value reads one value into buf and returns its type byte.
func (v *reader) value(depth int) (byte, error) {
	if depth > maxDepth {
		return 0, fmt.Errorf("%w: aggregates nested deeper than %d", errProtocol, maxDepth)
	}
	line, err := readLine(v.r)
	if err != nil {
		return 0, err
	}
	v.buf = append(v.buf, line...)
	t := line[0]
	switch t {
	case '+', '-', ':', '_', ',', '#', '(':
		return t, nil
	case '$', '!', '=':
		if streamed(line) {
			return t, v.chunks()
		}
		n, err := length(line)
		if err != nil || n > maxBulk {
			return 0, fmt.Errorf("%w: length %q", errProtocol, trim(line))
		}
		if n < 0 {
			return t, nil // RESP2's null bulk string
		}
		v.buf, err = readN(v.r, v.buf, n+2)
		return t, err
	case '*', '~', '>', '%', '|':
		if streamed(line) {
			return t, v.until(depth)
		}
		n, err := length(line)
		if err != nil || n > maxItems {
			return 0, fmt.Errorf("%w: length %q", errProtocol, trim(line))
		}
		if t == '%' || t == '|' {
			n *= 2 // a map's and an attribute's entries are pairs
		}
		for range n { // a negative n (RESP2's null array) reads nothing
			if _, err := v.value(depth + 1); err != nil {
				return 0, err
			}
		}
		return t, nil
	}
	return 0, fmt.Errorf("%w: type %q", errProtocol, t)
}

// chunks reads a streamed string's parts (";N\r\n" and N bytes) up to
// the empty one.
func (v *reader) chunks() error {
	for {
		line, err := readLine(v.r)
		if err != nil {
			return err
		}
		v.buf = append(v.buf, line...)
		n, err := length(line)
		if line[0] != ';' || err != nil || n < 0 || n > maxBulk {
			return fmt.Errorf("%w: streamed string part %q", errProtocol, trim(line))
		}
		if n == 0 {
			return nil
		}
		if v.buf, err = readN(v.r, v.buf, n+2); err != nil {
			return err
		}
	}
}

// until reads a streamed aggregate's values up to its end (".\r\n").
func (v *reader) until(depth int) error {
	for {
		b, err := v.r.Peek(1)
		if err != nil {
			return err
		}
		if b[0] == '.' {
			line, err := readLine(v.r)
			v.buf = append(v.buf, line...)
			return err
		}
		if _, err := v.value(depth + 1); err != nil {
			return err
		}
	}
}

// readLine reads a line up to and with its "\r\n", into a buffer of its
// own; a line longer than the reader's buffer (64 KiB) is refused.
func readLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return nil, fmt.Errorf("%w: a line longer than %d bytes", errProtocol, r.Size())
	}
	if err != nil {
		if errors.Is(err, io.EOF) && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		if len(line) <= 2 { // an empty inline line ("\r\n" or "\n")
			return []byte("\r\n"), nil
		}
		return nil, fmt.Errorf("%w: line %q does not end in CRLF", errProtocol, trim(line))
	}
	return bytes.Clone(line), nil
}

// readN appends n bytes of r to buf.
func readN(r *bufio.Reader, buf []byte, n int) ([]byte, error) {
	start := len(buf)
	buf = append(buf, make([]byte, n)...)
	_, err := io.ReadFull(r, buf[start:])
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return buf, err
}

// length is the number after a line's type byte ("$5\r\n": 5).
func length(line []byte) (int, error) {
	return strconv.Atoi(string(line[1 : len(line)-2]))
}

// streamed: "$?" or "*?", a RESP3 value of a length not known in advance.
func streamed(line []byte) bool { return len(line) == 4 && line[1] == '?' }

func trim(line []byte) []byte { return bytes.TrimRight(line, "\r\n") }
