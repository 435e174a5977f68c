#include <pthread.h>
#include "_cgo_export.h"

static int flag;
int proceed; // set by Go (a plain store, not a C call) to let the thread call into Go
int called;  // set by the C thread after its call into Go returned
static pthread_t thread;

// notify and wait synchronize through an atomic in C, which no Go hook
// sees (the shape of Go's race suite, cgo_test_main.go).
void notify(void) { __sync_fetch_and_add(&flag, 1); }
void wait(void) { while (__sync_fetch_and_add(&flag, 0) == 0) {} }

// waitOne, waitInto and notifyOne are wait and notify in the forms whose
// calls the instrumenter cannot wrap (instrument/cgo.go, cgoInPlace): the
// two-result form and a void function with a pointer argument.
int waitOne(void) { wait(); return 1; }
void waitInto(int *out) { wait(); *out = 1; }
int notifyOne(void) { notify(); return 1; }

static void *callGo(void *arg) {
	while (__sync_fetch_and_add(&proceed, 0) == 0) {}
	goWrite((int)(long)arg);
	__sync_fetch_and_add(&called, 1);
	return 0;
}

// startThread starts a C thread that calls the exported Go function
// goWrite; joinThread waits for it.
void startThread(int v) { pthread_create(&thread, 0, callGo, (void *)(long)v); }
void joinThread(void) { pthread_join(thread, 0); }
