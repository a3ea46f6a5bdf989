package pgtemp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ErrNoBinaries is returned (wrapped, with the places searched) when the
// PostgreSQL server binaries initdb and postgres cannot be found, and
// (wrapped) by Start on a system where pgtemp cannot run them.
var ErrNoBinaries = errors.New("pgtemp: PostgreSQL server binaries (initdb, postgres) not found: " +
	"install the `postgresql` package (Debian: apt-get install -y postgresql) " +
	"or pass --database-url / set DATABASE_URL to use an existing server")

// binDirEnv names the environment variable that overrides FindBinDir's search.
const binDirEnv = "IDEMSTRESS_PG_BINDIR"

// debianBinGlob is where Debian and Ubuntu install one directory per major version.
const debianBinGlob = "/usr/lib/postgresql/*/bin"

// FindBinDir locates the directory holding initdb and postgres: $IDEMSTRESS_PG_BINDIR
// if set, else `pg_config --bindir` if that directory has both, else the newest
// /usr/lib/postgresql/*/bin that has both. Otherwise it returns an error wrapping
// ErrNoBinaries that lists where it looked.
func FindBinDir() (string, error) {
	if dir := os.Getenv(binDirEnv); dir != "" {
		// An explicit setting that is wrong must not be papered over by a search.
		if missing := missingBinaries(dir); missing != "" {
			return "", fmt.Errorf("%w (looked in $%s=%s: %s)", ErrNoBinaries, binDirEnv, dir, missing)
		}
		return dir, nil
	}

	var looked []string
	if dir, err := pgConfigBinDir(); err != nil {
		looked = append(looked, "pg_config --bindir: "+err.Error())
	} else if missing := missingBinaries(dir); missing != "" {
		// Debian's /usr/bin/pg_config comes with libpq-dev and points at /usr/bin,
		// where only the client tools live.
		looked = append(looked, "pg_config --bindir="+dir+": "+missing)
	} else {
		return dir, nil
	}

	dirs, _ := filepath.Glob(debianBinGlob)
	sort.Slice(dirs, func(i, j int) bool { return newerVersionDir(dirs[i], dirs[j]) })
	for _, dir := range dirs {
		if missingBinaries(dir) == "" {
			return dir, nil
		}
	}
	if len(dirs) == 0 {
		looked = append(looked, debianBinGlob+": no such directory")
	} else {
		looked = append(looked, debianBinGlob+": none of "+strings.Join(dirs, ", ")+" has both")
	}
	return "", fmt.Errorf("%w (looked in $%s: unset; %s)", ErrNoBinaries, binDirEnv, strings.Join(looked, "; "))
}

func pgConfigBinDir() (string, error) {
	path, err := exec.LookPath("pg_config")
	if err != nil {
		return "", errors.New("pg_config not in $PATH")
	}
	out, err := exec.Command(path, "--bindir").Output()
	if err != nil {
		return "", fmt.Errorf("%s failed: %v", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// missingBinaries returns "" if dir holds executable initdb and postgres, or
// says which are missing.
func missingBinaries(dir string) string {
	var missing []string
	for _, name := range []string{"initdb", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "no " + strings.Join(missing, ", no ")
}

// newerVersionDir orders /usr/lib/postgresql/<version>/bin directories by
// version, newest first, so that 15 sorts before 9.6.
func newerVersionDir(a, b string) bool {
	va := versionParts(filepath.Base(filepath.Dir(a)))
	vb := versionParts(filepath.Base(filepath.Dir(b)))
	for i := 0; i < len(va) && i < len(vb); i++ {
		if va[i] != vb[i] {
			return va[i] > vb[i]
		}
	}
	if len(va) != len(vb) {
		return len(va) > len(vb)
	}
	return a > b
}

func versionParts(s string) []int {
	var parts []int
	for _, f := range strings.Split(s, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			n = -1
		}
		parts = append(parts, n)
	}
	return parts
}
