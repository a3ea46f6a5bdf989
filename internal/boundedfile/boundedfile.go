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
)

// errTooLarge marks a file larger than the limit it was read with.
var errTooLarge = errors.New("file too large")

// chunk is how much is read between two looks at the context.
const chunk = 256 << 10

// Read reads the file at path, which what names for the error ("a case
// file"), refusing one larger than limit bytes.
func Read(ctx context.Context, path string, limit int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
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
