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
package main

/*
#cgo LDFLAGS: -lpthread
void notify(void);
void wait(void);
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
