package detector

import (
	"reflect"
	"testing"
	"unsafe"
)

// The reflect scenarios of Go's race suite (reflect_test.go), through the
// hooks emitted code calls.
func TestReflect(t *testing.T) {
	t.Run("set-int", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			i := new(int)
			v := reflect.ValueOf(i)
			<-spawn(g, func(g *G) {
				ReflectW(g, 0, v.Elem()).Set(reflect.ValueOf(1))
				if synced {
					RaceRelease(unsafe.Pointer(i))
				}
			})
			if synced {
				RaceAcquire(unsafe.Pointer(i))
			}
			_ = ReflectR(g, 0, v.Elem()).Int()
		})
	})
	t.Run("copy", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			a := make([]byte, 2)
			v := reflect.ValueOf(a)
			<-spawn(g, func(g *G) {
				ReflectCopy(g, 0, v, v)
				if synced {
					RaceRelease(unsafe.Pointer(&a[0]))
				}
			})
			if synced {
				RaceAcquire(unsafe.Pointer(&a[0]))
			}
			ReflectCopy(g, 0, v, v)
		})
	})
	t.Run("unaddressable", func(t *testing.T) {
		expect(t, false, func(g *G) {
			v := reflect.ValueOf(42) // a copy: names no shared memory
			<-spawn(g, func(g *G) { _ = ReflectR(g, 0, v).Int() })
			_ = ReflectR(g, 0, v).Int()
		})
	})
}
