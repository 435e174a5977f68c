// Command cgoforms uses the forms of cgo that the instrumenter rewrites
// (instrument/cgo.go): C calls with and without arguments, with pointer
// arguments cgo checks, of void functions, in the two-result errno form,
// in go and defer statements and in a for post; C functions as function
// pointers; C variables, struct
// fields, enum constants, macros and sizeof; C.CString, C.GoString,
// C.malloc and C.free; a Go function exported to C and called back.
// cmd/bigfoot TestCgoForms builds it in every mode and compares its
// output with the plain build's.
package main

/*
#include <stdlib.h>
#include <string.h>
#include <errno.h>

typedef struct { int a; double b; char name[8]; } pair;
enum color { RED, GREEN = 5 };
#define LIMIT 42
extern int counter;
static int add(int a, int b) { return a + b; }
static void fill(pair *p, int v) { p->a = v; p->b = v * 0.5; strcpy(p->name, "hi"); }
static int failing(int x) { errno = EINVAL; return -x; }
static void sum(int *xs, int n, int *out) { int s = 0; for (int i = 0; i < n; i++) s += xs[i]; *out = s; }
static void nothing(void) {}
typedef int (*intFunc)(void);
int fortytwo(void);
static int bridge(intFunc f) { return f(); }
int callBack(int v);
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

//export goTwice
func goTwice(v C.int) C.int { return 2 * v }

type holder struct {
	p   C.pair
	cnt int
}

func main() {
	var h holder
	C.fill(&h.p, 7)
	fmt.Println(h.p.a, float64(h.p.b), C.GoString(&h.p.name[0]))

	cs := C.CString("hello")
	defer C.free(unsafe.Pointer(cs))
	fmt.Println(C.GoString(cs), int(C.strlen(cs)), C.GoStringN(cs, 2), len(C.GoBytes(unsafe.Pointer(cs), 3)))

	r, err := C.failing(3)
	fmt.Println(r, err != nil)
	_, err = C.failing(C.int(h.cnt))
	fmt.Println(err != nil)

	xs := []C.int{1, 2, 3, 4}
	var out C.int
	C.sum(&xs[0], C.int(len(xs)), &out)
	fmt.Println(out, C.LIMIT, C.GREEN, C.sizeof_pair > 0)

	C.counter = 3
	C.counter++
	fmt.Println(C.counter, C.add(C.counter, 1), C.callBack(5))
	C.nothing()
	f := C.intFunc(C.fortytwo) // a C function as a function pointer (cgo's _Cfpvar_fp_)
	fmt.Println(int(C.bridge(f)))

	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := int(C.add(C.int(i), C.int(i)))
			mu.Lock()
			total += v
			mu.Unlock()
		}()
	}
	wg.Wait()
	p := (*C.pair)(C.malloc(C.size_t(unsafe.Sizeof(C.pair{}))))
	p.a = 9
	arr := (*[4]C.int)(C.malloc(16))
	for i := range arr {
		arr[i] = C.int(i)
	}
	fmt.Println(total, p.a, arr[3])
	C.free(unsafe.Pointer(p))
	C.free(unsafe.Pointer(arr))
}

func deferred(done chan bool) {
	p := C.malloc(8)
	defer C.free(p)
	go C.nothing()
	go C.free(C.malloc(4))
	for i := 0; i < 2; C.free(unsafe.Pointer(nil)) {
		i++
	}
	done <- true
}

func init() {
	d := make(chan bool)
	go deferred(d)
	<-d
}
