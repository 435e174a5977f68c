// Command cgosync checks that calls into C and from C into Go synchronize
// as they do under Go's race runtime (detector/cgo.go): every C call
// releases before and acquires after, a Go function called from C
// acquires at entry and releases at exit. Its argument picks a program:
//
//	notify        a goroutine writes, then signals through an atomic in
//	              C; main waits in C, then reads: no race
//	callback      a C thread calls an exported Go function that writes;
//	              main joins the thread in C, then reads: no race
//	callbackrace  the C thread calls into Go, which writes, once main has
//	              returned from the C call that started the thread; main
//	              waits until the thread says that the call returned,
//	              then writes, with no C call in between (both signals
//	              are plain accesses of C variables): a race go -race
//	              reports in every run
//	forinit       as notify, but main waits in a C call in the
//	              two-result form that defines a for statement's
//	              variables, then reads in the loop: no race
//	forpost       as notify, but main waits in a void C call with a
//	              pointer argument, the post statement of a for loop:
//	              no race
//	forrelease    as notify, but the goroutine signals in a C call in
//	              the two-result form that defines a for statement's
//	              variables: no race
package main

/*
#cgo LDFLAGS: -lpthread
void notify(void);
void wait(void);
int waitOne(void);
void waitInto(int *out);
int notifyOne(void);
void startThread(int v);
void joinThread(void);
extern int proceed;
extern int called;
*/
import "C"

import (
	"fmt"
	"os"
	"time"
)

var data int

//export goWrite
func goWrite(v C.int) { data = int(v) }

func main() {
	switch os.Args[1] {
	case "notify":
		go func() {
			data = 1
			C.notify()
		}()
		C.wait()
		fmt.Println("data", data)
	case "forinit":
		go func() {
			data = 1
			C.notify()
		}()
		for n, _ := C.waitOne(); n > 0; n-- {
			fmt.Println("data", data)
		}
	case "forpost":
		go func() {
			data = 1
			C.notify()
		}()
		var done C.int
		for ; done == 0; C.waitInto(&done) {
		}
		fmt.Println("data", data)
	case "forrelease":
		go func() {
			data = 1
			for n, _ := C.notifyOne(); n < 0; n++ {
			}
		}()
		C.wait()
		fmt.Println("data", data)
	case "callback":
		C.startThread(2)
		C.proceed = 1
		C.joinThread()
		fmt.Println("data", data)
	case "callbackrace":
		C.startThread(3)
		C.proceed = 1
		for C.called == 0 {
			time.Sleep(time.Millisecond)
		}
		data = 4
		C.joinThread()
		fmt.Println("data", data)
	default:
		fmt.Fprintln(os.Stderr, "unknown program", os.Args[1])
		os.Exit(2)
	}
}
