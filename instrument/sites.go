package instrument

import (
	"fmt"
	"hash/fnv"
)

// shortHash names a file's site table: a short hash of its base name,
// unique within a package in practice (and checked by the compiler: two
// files with colliding names would fail to build, which the tests guard).
func shortHash(base string) string {
	h := fnv.New32a()
	h.Write([]byte(base))
	return fmt.Sprintf("%08x", h.Sum32())
}
