// Package boundedfile reads a file that must fit in memory: at most a
// limit of bytes, in chunks, stopping when the context ends. A path such as
// /dev/zero or a multi-GiB log given by mistake fails with one line instead
// of reading until memory runs out, and a signal is honoured while reading.
package boundedfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// errTooLarge marks a file larger than the limit it was read with.
var errTooLarge = errors.New("file too large")

// chunk is how much is read between two looks at the context.
const chunk = 256 << 10

// Read reads the file at path, which what names for the error ("a case
// file"), refusing one larger than limit bytes. A FIFO or a pipe is opened
// without waiting for a writer, and a read waiting on one ends with ctx.
func Read(ctx context.Context, path string, limit int64, what string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A read blocked on a pipe ends at once when the deadline is set.
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Now()) })
	defer stop()
	data, err := read(ctx, f, path, limit, what)
	if err == nil && len(data) == 0 && isFIFO(f) {
		return nil, fmt.Errorf("%s is a FIFO with no writer: start its writer first, or name a file", path)
	}
	return data, err
}

// Open opens path for reading; a FIFO without waiting for a writer (an
// open that would otherwise block until one comes, whatever the context).
func Open(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// isFIFO reports whether f is a named pipe.
func isFIFO(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeNamedPipe != 0
}

// read reads f in chunks up to limit, looking at ctx between two.
func read(ctx context.Context, f *os.File, path string, limit int64, what string) ([]byte, error) {
	var data []byte
	if info, err := f.Stat(); err == nil && info.Mode().IsRegular() && info.Size() <= limit {
		data = make([]byte, 0, info.Size()+1)
	}
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, context.Cause(ctx))
		}
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("%s: %w: more than %s; %s is smaller: is this the right path?", path, errTooLarge, size(limit), what)
		}
		n := min(int64(chunk), limit+1-int64(len(data)))
		data = append(data, make([]byte, n)...)
		got, err := io.ReadFull(f, data[len(data)-int(n):])
		data = data[:len(data)-int(n)+got]
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return data, nil
		case errors.Is(err, os.ErrDeadlineExceeded) && ctx.Err() != nil:
			return nil, fmt.Errorf("reading %s: %w", path, context.Cause(ctx))
		case err != nil:
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
}

// size renders a limit in the largest whole unit.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
