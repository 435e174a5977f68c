package detector

// Hook sites. Some accesses are checked by the runtime itself, not by an
// instrumented file: an atomic operation's access of its word, a lock's
// read of its memory, a call of an iter.Pull's next or stop, and the race
// annotations of standard-library code (RaceRead and the others). They
// have no line in any file's site table; each kind gets a site of its own
// here. A report prints a hook site's stack from the first frame outside
// the detector, and nothing but "[failed to restore the stack]" when the
// stack of an earlier such access is not known.
//
// The history (history.go) keeps the stacks of the hooks from hookNoted
// on, so that a report shows the user's call of next or of the annotated
// function as the earlier access, as go -race shows it (its
// runtime.racewrite's callers). Atomic operations and locks are left out:
// they are frequent, every one of them is a new epoch and so a walk of
// the stack (a third of an uncontended Lock's cost), and go -race shows
// none of their callers either (only sync/atomic's frames).
const (
	hookAtomic     = iota // an atomic operation (atomic.go)
	hookLock              // a Lock's or Unlock's read of the lock (sync.go)
	hookPull              // a call of a Pull's next or stop (iter.go)
	hookAnnotation        // RaceRead, RaceWrite and their ranges (runtime.go)
	numHooks

	hookNoted = hookPull // the first hook the history keeps
)

// hookBase is the id of the first hook site. A package-level variable, so
// that the table is registered before any check runs.
var hookBase = registerHookSites("0:0:atomic\n0:0:lock\n0:0:pull\n0:0:annotation\n")

// hookSite returns the site id of hook kind k.
func hookSite(k uint32) uint32 { return hookBase + k }

// registerHookSites registers table as the site table of the hooks.
func registerHookSites(table string) uint32 {
	base := RegisterSites("", "", table)
	sites.mu.Lock()
	defer sites.mu.Unlock()
	for _, t := range sites.tables {
		if t.base == base {
			t.hook = true
		}
	}
	return base
}

// isHookSite reports whether s is a hook site.
func isHookSite(s uint32) bool { return s-hookBase < numHooks }

// unnoted reports whether s is a hook site whose accesses the history
// does not keep.
func unnoted(s uint32) bool { return s-hookBase < hookNoted }
