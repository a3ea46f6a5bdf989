// Package atomicfile writes a file so that a reader sees the old contents
// or the new, never a mix: shards of a nightly run that share a volume may
// write the same case file at once.
//
// Only a regular file or an absent path is replaced that way. Whatever
// else stands at the path (a symlink, a character device such as
// /dev/stdout's target, a FIFO) is written through, never replaced: a
// rename over /dev/stdout would turn the user's terminal or pipe into a
// regular file. A dangling symlink and a FIFO without a reader are refused
// in one line naming the path, rather than created or waited on forever.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Write writes what write writes to path. For an absent path or a regular
// file it writes to a temporary file in path's directory (named
// ".BASE.*.tmp", so a reader of *.json or *.html never lists it), and
// renames it to path once complete, mode 0644; on error path is left as it
// was and the temporary file is removed. Anything else is written through,
// as Through says.
func Write(path string, write func(io.Writer) error) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode().IsRegular():
		return replace(path, write)
	case err != nil:
		return err
	}
	f, err := Through(path, os.O_TRUNC)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Through opens an existing path that is not a regular file for writing,
// following a symlink, with flag added (os.O_TRUNC, os.O_APPEND; O_TRUNC
// only where the link leads to a regular file). A FIFO is opened without
// waiting for a reader, and refused when it has none; a dangling symlink
// and a directory are refused.
func Through(path string, flag int) (*os.File, error) {
	target, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s is a symlink to a missing file: point it at a file or remove it", path)
	case err != nil:
		return nil, err
	case target.IsDir():
		return nil, fmt.Errorf("%s is a directory: name a file", path)
	case !target.Mode().IsRegular():
		flag &^= os.O_TRUNC // a device or a FIFO has nothing to truncate
	}
	f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK|flag, 0)
	if errors.Is(err, syscall.ENXIO) {
		return nil, fmt.Errorf("%s is a FIFO or socket with no reader: start its reader first, or name a file", path)
	}
	return f, err
}

// replace writes through a temporary file renamed over path.
func replace(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return nil
}

// Append opens path for appending, creating a missing file (mode 0644);
// anything but an absent path or a regular file is opened as Through says.
func Append(path string) (*os.File, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode().IsRegular():
		return os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	case err != nil:
		return nil, err
	}
	return Through(path, os.O_APPEND)
}
