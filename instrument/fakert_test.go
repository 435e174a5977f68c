package instrument

// fakeRuntime is a stand-in for package detector with the signatures of
// docs/api.md and no behavior. Compile tests use it when the real runtime
// does not build (it is written concurrently), so that the emitted code is
// type-checked against the contract either way.
const fakeRuntime = `package detector

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

type G struct{}
type Child struct{}
type Fields struct{}
type TB interface {
	Cleanup(func())
	Errorf(format string, args ...any)
}

func Cur() *G                                                   { return &G{} }
func RegisterSites(pkgPath, file string, table string) uint32    { return 1 }
func R[T any](g *G, p *T, site uint32) *T                        { return p }
func W[T any](g *G, p *T, site uint32) *T                        { return p }
func (g *G) Read(addr unsafe.Pointer, size uintptr, site uint32)  {}
func (g *G) Write(addr unsafe.Pointer, size uintptr, site uint32) {}
func (g *G) ReadRange(base unsafe.Pointer, elem uintptr, lo, hi, stride int, site uint32)  {}
func (g *G) WriteRange(base unsafe.Pointer, elem uintptr, lo, hi, stride int, site uint32) {}
func NewFields(offsetSize ...uintptr) *Fields                    { return nil }
func MapRead[M any](g *G, m M, site uint32) M                    { return m }
func MapWrite[M any](g *G, m M, site uint32) M                   { return m }
func (g *G) Fork(site uint32) *Child                             { return nil }
func Start(c *Child) *G                                          { return &G{} }
func (g *G) Exit()                                               {}
func Lock(g *G, m *sync.Mutex)                                   { m.Lock() }
func Unlock(g *G, m *sync.Mutex)                                 { m.Unlock() }
func TryLock(g *G, m *sync.Mutex) bool                           { return m.TryLock() }
func RWLock(g *G, m *sync.RWMutex)                               { m.Lock() }
func RWUnlock(g *G, m *sync.RWMutex)                             { m.Unlock() }
func RWRLock(g *G, m *sync.RWMutex)                              { m.RLock() }
func RWRUnlock(g *G, m *sync.RWMutex)                            { m.RUnlock() }
func RWTryLock(g *G, m *sync.RWMutex) bool                       { return m.TryLock() }
func RWTryRLock(g *G, m *sync.RWMutex) bool                      { return m.TryRLock() }
func LockerLock(g *G, l sync.Locker)                             { l.Lock() }
func LockerUnlock(g *G, l sync.Locker)                           { l.Unlock() }
func WaitGroupAdd(g *G, wg *sync.WaitGroup, delta int)           { wg.Add(delta) }
func WaitGroupDone(g *G, wg *sync.WaitGroup)                     { wg.Done() }
func WaitGroupWait(g *G, wg *sync.WaitGroup)                     { wg.Wait() }
func WaitGroupGo(g *G, wg *sync.WaitGroup, f func(), site uint32) { wg.Go(f) }
func OnceDo(g *G, o *sync.Once, f func())                        { o.Do(f) }
func OnceFunc(g *G, f func()) func()                             { return sync.OnceFunc(f) }
func OnceValue[T any](g *G, f func() T) func() T                 { return sync.OnceValue(f) }
func OnceValues[T1, T2 any](g *G, f func() (T1, T2)) func() (T1, T2) { return sync.OnceValues(f) }
func CondWait(g *G, c *sync.Cond)                                { c.Wait() }
func CondSignal(g *G, c *sync.Cond)                              { c.Signal() }
func CondBroadcast(g *G, c *sync.Cond)                           { c.Broadcast() }
func SyncMapLoad(g *G, m *sync.Map, key any) (any, bool)         { return m.Load(key) }
func SyncMapStore(g *G, m *sync.Map, key, value any)             { m.Store(key, value) }
func SyncMapLoadOrStore(g *G, m *sync.Map, key, value any) (any, bool) { return m.LoadOrStore(key, value) }
func SyncMapLoadAndDelete(g *G, m *sync.Map, key any) (any, bool) { return m.LoadAndDelete(key) }
func SyncMapDelete(g *G, m *sync.Map, key any)                   { m.Delete(key) }
func SyncMapSwap(g *G, m *sync.Map, key, value any) (any, bool)  { return m.Swap(key, value) }
func SyncMapCompareAndSwap(g *G, m *sync.Map, key, old, new any) bool { return m.CompareAndSwap(key, old, new) }
func SyncMapCompareAndDelete(g *G, m *sync.Map, key, old any) bool { return m.CompareAndDelete(key, old) }
func SyncMapRange(g *G, m *sync.Map, f func(key, value any) bool) { m.Range(f) }
func SyncMapClear(g *G, m *sync.Map)                             { m.Clear() }
func PoolGet(g *G, p *sync.Pool) any                             { return p.Get() }
func PoolPut(g *G, p *sync.Pool, x any)                          { p.Put(x) }
func AtomicAddInt32(g *G, p *int32, d int32) int32               { return atomic.AddInt32(p, d) }
func AtomicAddInt64(g *G, p *int64, d int64) int64               { return atomic.AddInt64(p, d) }
func AtomicAddUint32(g *G, p *uint32, d uint32) uint32           { return atomic.AddUint32(p, d) }
func AtomicAddUint64(g *G, p *uint64, d uint64) uint64           { return atomic.AddUint64(p, d) }
func AtomicAddUintptr(g *G, p *uintptr, d uintptr) uintptr       { return atomic.AddUintptr(p, d) }
func AtomicLoadInt32(g *G, p *int32) int32                       { return atomic.LoadInt32(p) }
func AtomicLoadInt64(g *G, p *int64) int64                       { return atomic.LoadInt64(p) }
func AtomicLoadUint32(g *G, p *uint32) uint32                    { return atomic.LoadUint32(p) }
func AtomicLoadUint64(g *G, p *uint64) uint64                    { return atomic.LoadUint64(p) }
func AtomicLoadUintptr(g *G, p *uintptr) uintptr                 { return atomic.LoadUintptr(p) }
func AtomicLoadPointer(g *G, p *unsafe.Pointer) unsafe.Pointer   { return atomic.LoadPointer(p) }
func AtomicStoreInt32(g *G, p *int32, v int32)                   { atomic.StoreInt32(p, v) }
func AtomicStoreInt64(g *G, p *int64, v int64)                   { atomic.StoreInt64(p, v) }
func AtomicStoreUint32(g *G, p *uint32, v uint32)                { atomic.StoreUint32(p, v) }
func AtomicStoreUint64(g *G, p *uint64, v uint64)                { atomic.StoreUint64(p, v) }
func AtomicStoreUintptr(g *G, p *uintptr, v uintptr)             { atomic.StoreUintptr(p, v) }
func AtomicStorePointer(g *G, p *unsafe.Pointer, v unsafe.Pointer) { atomic.StorePointer(p, v) }
func AtomicSwapInt32(g *G, p *int32, v int32) int32              { return atomic.SwapInt32(p, v) }
func AtomicSwapInt64(g *G, p *int64, v int64) int64              { return atomic.SwapInt64(p, v) }
func AtomicCompareAndSwapInt32(g *G, p *int32, o, n int32) bool  { return atomic.CompareAndSwapInt32(p, o, n) }
func AtomicCompareAndSwapInt64(g *G, p *int64, o, n int64) bool  { return atomic.CompareAndSwapInt64(p, o, n) }
func AtomicCompareAndSwapUint32(g *G, p *uint32, o, n uint32) bool { return atomic.CompareAndSwapUint32(p, o, n) }
func AtomicCompareAndSwapUint64(g *G, p *uint64, o, n uint64) bool { return atomic.CompareAndSwapUint64(p, o, n) }
func AtomicCompareAndSwapPointer(g *G, p *unsafe.Pointer, o, n unsafe.Pointer) bool { return atomic.CompareAndSwapPointer(p, o, n) }
func AtomicAndInt32(g *G, p *int32, m int32) int32               { return atomic.AndInt32(p, m) }
func AtomicOrInt32(g *G, p *int32, m int32) int32                { return atomic.OrInt32(p, m) }
func AtomicInt32Add(g *G, v *atomic.Int32, d int32) int32        { return v.Add(d) }
func AtomicInt32Load(g *G, v *atomic.Int32) int32                { return v.Load() }
func AtomicInt32Store(g *G, v *atomic.Int32, x int32)            { v.Store(x) }
func AtomicInt64Add(g *G, v *atomic.Int64, d int64) int64        { return v.Add(d) }
func AtomicInt64Load(g *G, v *atomic.Int64) int64                { return v.Load() }
func AtomicInt64Store(g *G, v *atomic.Int64, x int64)            { v.Store(x) }
func AtomicInt64CompareAndSwap(g *G, v *atomic.Int64, o, n int64) bool { return v.CompareAndSwap(o, n) }
func AtomicUint64Add(g *G, v *atomic.Uint64, d uint64) uint64    { return v.Add(d) }
func AtomicUint64Load(g *G, v *atomic.Uint64) uint64             { return v.Load() }
func AtomicBoolLoad(g *G, v *atomic.Bool) bool                   { return v.Load() }
func AtomicBoolStore(g *G, v *atomic.Bool, x bool)               { v.Store(x) }
func AtomicValueLoad(g *G, v *atomic.Value) any                  { return v.Load() }
func AtomicValueStore(g *G, v *atomic.Value, x any)              { v.Store(x) }
func AtomicPointerLoad[T any](g *G, v *atomic.Pointer[T]) *T      { return v.Load() }
func AtomicPointerStore[T any](g *G, v *atomic.Pointer[T], x *T)  { v.Store(x) }
func Send[T any](g *G, ch any, capacity int, v T) T              { return v }
func SendPre(g *G, ch any, capacity int)                         {}
func SendPost(g *G, ch any, capacity int)                        {}
func RecvPre[C any](g *G, ch C, capacity int) C                  { return ch }
func RecvPost[T any](g *G, ch any, capacity int, v T) T          { return v }
func RecvPostOK(g *G, ch any, capacity int)                      {}
func Close[C any](g *G, ch C) C                                  { return ch }
func SelectPre(g *G, chans ...any)                               {}
func SelectPost(g *G, ch any, capacity int, recv bool)           {}
func SetFinalizer(g *G, obj any, finalizer any)                  { runtime.SetFinalizer(obj, finalizer) }
func AddCleanup[T, S any](g *G, ptr *T, cleanup func(S), arg S) runtime.Cleanup { return runtime.AddCleanup(ptr, cleanup, arg) }
func RaceDisable()                                               {}
func RaceEnable()                                                {}
func RaceRead(addr unsafe.Pointer)                               {}
func RaceWrite(addr unsafe.Pointer)                              {}
func RaceReadRange(addr unsafe.Pointer, n int)                   {}
func RaceWriteRange(addr unsafe.Pointer, n int)                  {}
func RaceAcquire(addr unsafe.Pointer)                            {}
func RaceRelease(addr unsafe.Pointer)                            {}
func RaceReleaseMerge(addr unsafe.Pointer)                       {}
func RaceErrors() int                                            { return 0 }
func Exit(code int)                                              { os.Exit(code) }
func Main(main func())                                           { main() }
func TestMain(m interface{ Run() int }, user func()) {
	if user != nil {
		user()
		return
	}
	os.Exit(m.Run())
}
func TestStart(g *G, t TB) {}
func Run[T any](g *G, run func(string, func(T)) bool, name string, f func(T)) bool { return run(name, f) }
`
