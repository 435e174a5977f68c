package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// I/O as synchronization (docs/runtime.md, "I/O"). The operating system
// orders a write to a file, socket or pipe before a read that sees it; Go's
// race detector models this in internal/poll with one sync object for all
// I/O. The standard library is not instrumented, so the calls of
// instrumented code that do I/O announce it: writes call __bf.IOWrite
// (release) before, reads __bf.IORead (acquire) after.

// ioKind says how a call does I/O.
type ioKind uint8

const (
	ioWrite ioKind = 1 << iota // release before the call
	ioRead                     // acquire after the call
	ioBoth  = ioWrite | ioRead
)

// ioFuncs maps "pkgpath.Func" of package-level functions to their kind.
// Creating, renaming, removing files is a write (another goroutine can see
// it through Open or Stat); opening or inspecting them is a read.
var ioFuncs = map[string]ioKind{
	"os.WriteFile":  ioWrite,
	"os.Create":     ioBoth,
	"os.OpenFile":   ioBoth,
	"os.CreateTemp": ioBoth,
	"os.MkdirTemp":  ioBoth,
	"os.Mkdir":      ioWrite,
	"os.MkdirAll":   ioWrite,
	"os.Rename":     ioWrite,
	"os.Remove":     ioWrite,
	"os.RemoveAll":  ioWrite,
	"os.Symlink":    ioWrite,
	"os.Link":       ioWrite,
	"os.Chmod":      ioWrite,
	"os.Chtimes":    ioWrite,
	"os.Truncate":   ioWrite,
	"os.Open":       ioRead,
	"os.ReadFile":   ioRead,
	"os.ReadDir":    ioRead,
	"os.Stat":       ioRead,
	"os.Lstat":      ioRead,
	"os.Readlink":   ioRead,

	"io.Copy":        ioBoth,
	"io.CopyN":       ioBoth,
	"io.CopyBuffer":  ioBoth,
	"io.ReadAll":     ioRead,
	"io.ReadFull":    ioRead,
	"io.ReadAtLeast": ioRead,
	"io.WriteString": ioWrite,

	// Printing only releases: goroutines that print are not ordered with
	// each other (as in Go, where an fd write only release-merges).
	"fmt.Print":    ioWrite,
	"fmt.Printf":   ioWrite,
	"fmt.Println":  ioWrite,
	"fmt.Fprint":   ioWrite,
	"fmt.Fprintf":  ioWrite,
	"fmt.Fprintln": ioWrite,
	"fmt.Scan":     ioRead,
	"fmt.Scanf":    ioRead,
	"fmt.Scanln":   ioRead,
	"fmt.Fscan":    ioRead,
	"fmt.Fscanf":   ioRead,
	"fmt.Fscanln":  ioRead,
	"log.Print":    ioWrite,
	"log.Printf":   ioWrite,
	"log.Println":  ioWrite,

	"net.Listen":       ioRead,
	"net.ListenTCP":    ioRead,
	"net.ListenUDP":    ioRead,
	"net.ListenUnix":   ioRead,
	"net.ListenPacket": ioRead,
	"net.Dial":         ioBoth,
	"net.DialTimeout":  ioBoth,
	"net.DialTCP":      ioBoth,
	"net.DialUDP":      ioBoth,
	"net.DialUnix":     ioBoth,

	"net/http.Get":      ioBoth,
	"net/http.Head":     ioBoth,
	"net/http.Post":     ioBoth,
	"net/http.PostForm": ioBoth,

	// A server's handlers run on goroutines net/http starts, which Go's
	// race runtime orders after the call that starts serving (a go
	// statement inside Serve): the call releases, as an I/O write, what
	// the handlers' IORead acquires.
	"net/http.ListenAndServe":    ioBoth,
	"net/http.ListenAndServeTLS": ioBoth,
	"net/http.Serve":             ioBoth,
	"net/http.ServeTLS":          ioBoth,
}

// ioMethods maps "pkgpath.Type.Method" of methods of concrete types (and
// of the interfaces that declare them) to their kind. Read and Write of
// any interface with io.Reader's or io.Writer's signature are I/O too
// (ioInterfaceMethod): the dynamic type may be a bytes.Buffer, and then
// the call over-synchronizes, which may hide a race but never invents one.
var ioMethods = map[string]ioKind{}

func init() {
	add := func(typ string, kind ioKind, methods ...string) {
		for _, m := range methods {
			ioMethods[typ+"."+m] = kind
		}
	}
	add("os.File", ioWrite, "Write", "WriteString", "WriteAt", "Close", "Sync", "Truncate", "Chmod", "Chown")
	add("os.File", ioBoth, "ReadFrom", "WriteTo")
	add("os.File", ioRead, "Read", "ReadAt", "ReadDir", "Readdir", "Readdirnames", "Stat")
	for _, t := range []string{"net.conn", "net.TCPConn", "net.UDPConn", "net.UnixConn", "net.IPConn", "net.Conn", "net.PacketConn"} {
		add(t, ioWrite, "Write", "WriteTo", "WriteToUDP", "WriteToUDPAddrPort", "WriteMsgUDP", "WriteToUnix", "WriteMsgUnix", "WriteToIP", "Close", "CloseWrite", "CloseRead")
		add(t, ioRead, "Read", "ReadFrom", "ReadFromUDP", "ReadFromUDPAddrPort", "ReadMsgUDP", "ReadFromUnix", "ReadMsgUnix", "ReadFromIP")
	}
	add("net.TCPConn", ioBoth, "ReadFrom", "WriteTo") // io.ReaderFrom / io.WriterTo: splice
	for _, t := range []string{"net.Listener", "net.TCPListener", "net.UnixListener"} {
		add(t, ioRead, "Accept", "AcceptTCP", "AcceptUnix")
		add(t, ioWrite, "Close")
	}
	add("net.Dialer", ioBoth, "Dial", "DialContext")
	add("net.ListenConfig", ioRead, "Listen", "ListenPacket")
	add("io.Closer", ioWrite, "Close")
	add("io.ReaderFrom", ioBoth, "ReadFrom")
	add("io.WriterTo", ioBoth, "WriteTo")
	add("io.PipeReader", ioRead, "Read")
	add("io.PipeReader", ioWrite, "Close", "CloseWithError")
	add("io.PipeWriter", ioWrite, "Write", "Close", "CloseWithError")
	add("bufio.Reader", ioRead, "Read", "ReadByte", "ReadBytes", "ReadLine", "ReadRune", "ReadSlice", "ReadString", "Peek", "Discard")
	add("bufio.Reader", ioBoth, "WriteTo")
	add("bufio.Scanner", ioRead, "Scan")
	add("bufio.Writer", ioWrite, "Write", "WriteByte", "WriteRune", "WriteString", "Flush")
	add("bufio.Writer", ioBoth, "ReadFrom")
	add("log.Logger", ioWrite, "Print", "Printf", "Println")
	add("net/http.Client", ioBoth, "Do", "Get", "Head", "Post", "PostForm")
	add("net/http.Transport", ioBoth, "RoundTrip")
	add("net/http.RoundTripper", ioBoth, "RoundTrip")
	add("net/http.Server", ioBoth, "Serve", "ServeTLS", "ListenAndServe", "ListenAndServeTLS") // handlers after the call; return after Shutdown/Close
	add("net/http.Flusher", ioWrite, "Flush")
	add("os/exec.Cmd", ioWrite, "Start")
	add("os/exec.Cmd", ioBoth, "Run", "Output", "CombinedOutput")
	add("os/exec.Cmd", ioRead, "Wait")
}

// ioCall classifies a call's callee; 0 if it does no I/O.
func (r *fileRewriter) ioCall(fun ast.Expr) ioKind {
	fun = ast.Unparen(fun)
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := r.info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return 0
			}
			fn, ok := sel.Obj().(*types.Func)
			if !ok || fn.Pkg() == nil {
				return 0
			}
			recv := fn.Type().(*types.Signature).Recv()
			if recv == nil {
				return 0
			}
			rt := recv.Type()
			if p, ok := rt.(*types.Pointer); ok {
				rt = p.Elem()
			}
			named, ok := types.Unalias(rt).(*types.Named)
			if !ok {
				if _, isIface := rt.Underlying().(*types.Interface); isIface {
					return ioInterfaceMethod(fn)
				}
				return 0
			}
			if k, ok := ioMethods[fn.Pkg().Path()+"."+named.Obj().Name()+"."+fn.Name()]; ok {
				return k
			}
			if _, isIface := named.Underlying().(*types.Interface); isIface {
				return ioInterfaceMethod(fn)
			}
			return 0
		}
		id = f.Sel
	default:
		return 0
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Type().(*types.Signature).Recv() != nil {
		return 0
	}
	return ioFuncs[fn.Pkg().Path()+"."+fn.Name()]
}

// ioInterfaceMethod classifies a method of an interface: Read and Write
// with the signatures of io.Reader and io.Writer.
func ioInterfaceMethod(fn *types.Func) ioKind {
	sig := fn.Type().(*types.Signature)
	if sig.Params().Len() != 1 || sig.Results().Len() != 2 || sig.Variadic() {
		return 0
	}
	s, ok := sig.Params().At(0).Type().Underlying().(*types.Slice)
	if !ok {
		return 0
	}
	if b, ok := s.Elem().Underlying().(*types.Basic); !ok || b.Kind() != types.Byte {
		return 0
	}
	switch fn.Name() {
	case "Read":
		return ioRead
	case "Write":
		return ioWrite
	}
	return 0
}

// ioWrap adds the I/O hooks of kind to a call being rendered from subs
// (the callee's substitution first, then one per argument, in args). A
// write releases right before the call: through IOW around the last
// argument whose evaluation can be wrapped (so that the reads the
// arguments do are released too), else around the function value. A read
// acquires after the call, around its results.
func (r *fileRewriter) ioWrap(e *ast.CallExpr, kind ioKind, fun sub, args []sub) string {
	if kind == ioRead {
		if text, ok := r.readInto(e, fun, args); ok {
			return "__bf.IOR2(" + text + ")"
		}
	}
	if kind&ioWrite != 0 {
		wrapped := false
		for i := len(e.Args) - 1; i >= 0; i-- {
			if r.ioWrappable(e.Args[i]) {
				args[i].text = "__bf.IOW(" + r.g() + ", " + args[i].text + ")"
				wrapped = true
				break
			}
		}
		if !wrapped {
			text := fun.text
			if fun.lo != e.Fun.Pos() || fun.hi != e.Fun.End() {
				// fun replaces only the receiver: render the method value.
				text = r.spliceNode(e.Fun, fun)
			}
			fun = sub{e.Fun.Pos(), e.Fun.End(), "__bf.IOW(" + r.g() + ", " + text + ")"}
		}
	}
	text := r.spliceNode(e, append([]sub{fun}, args...)...)
	if kind&ioRead != 0 {
		switch n := r.resultCount(e); n {
		case 1:
			text = "__bf.IOR(" + r.g() + ", " + text + ")"
		case 2:
			text = "__bf.IOR2(" + text + ")"
		case 3:
			text = "__bf.IOR3(" + text + ")"
		default:
			r.note(e.Pos(), "I/O read with %d results: not ordered after writes", n)
		}
	}
	return text
}

// resultCount is the number of results of a call.
func (r *fileRewriter) resultCount(e *ast.CallExpr) int {
	t := r.info.Types[e].Type
	if t == nil {
		return -1
	}
	if tup, ok := t.(*types.Tuple); ok {
		return tup.Len()
	}
	return 1
}

// ioWrappable reports whether the argument a can be passed through the
// generic IOW without changing the call's typing: it has a type of its own
// (not an untyped constant, nil, comparison or shift, which take the
// parameter's type) and is not a generic function or a multi-valued call.
func (r *fileRewriter) ioWrappable(a ast.Expr) bool {
	tv, ok := r.info.Types[a]
	if !ok || tv.Value != nil || tv.IsNil() || tv.IsType() || tv.Type == nil {
		return false
	}
	switch t := tv.Type.(type) {
	case *types.Tuple:
		return false
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 {
			return false
		}
	case *types.Signature:
		if t.TypeParams().Len() > 0 {
			return false
		}
	}
	switch x := ast.Unparen(a).(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.SHL, token.SHR, token.LAND, token.LOR:
			return false
		}
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return false
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		// A generic function instantiated by the parameter's type.
		if id := identOf(x); id != nil {
			if f, ok := r.info.Uses[id].(*types.Func); ok && f.Type().(*types.Signature).TypeParams().Len() > 0 {
				return false
			}
		}
	}
	return true
}

func identOf(e ast.Expr) *ast.Ident {
	switch x := e.(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	case *ast.IndexExpr:
		return identOf(x.X)
	case *ast.IndexListExpr:
		return identOf(x.X)
	}
	return nil
}

// deferredIO wraps the text of a call deferred by a go or defer statement
// (its operands already evaluated) in the I/O hooks of kind, run by the
// goroutine state g.
func deferredIO(kind ioKind, g, call string) string {
	var b strings.Builder
	if kind&ioWrite != 0 {
		b.WriteString("__bf.IOWrite(" + g + "); ")
	}
	b.WriteString(call)
	if kind&ioRead != 0 {
		b.WriteString("; __bf.IORead(" + g + ")")
	}
	return b.String()
}

// httpHandlerPrologue is added to the prologue of functions with the
// signature of an HTTP handler, func(http.ResponseWriter, *http.Request):
// net/http runs them on goroutines of its own after reading the request
// and writes the response after they return, so the handler acquires at
// entry and releases at exit.
const httpHandlerPrologue = "__bf.IORead(__bfg); defer __bf.IOWrite(__bfg);"

// isHTTPHandler reports whether sig is func(http.ResponseWriter, *http.Request).
func isHTTPHandler(sig *types.Signature) bool {
	if sig == nil || sig.Params().Len() != 2 || sig.Results().Len() != 0 || sig.Variadic() {
		return false
	}
	isNamed := func(t types.Type, name string) bool {
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == name
	}
	p, ok := sig.Params().At(1).Type().(*types.Pointer)
	return ok && isNamed(sig.Params().At(0).Type(), "ResponseWriter") && isNamed(p.Elem(), "Request")
}

// readInto renders a call of a Read or ReadAt method of the io.Reader or
// io.ReaderAt shape, declared outside the instrumented packages or called
// through an interface, as __bf.ReadInto(g, site, x.Read, p) (or ReadAtInto):
// the runtime calls the method and checks the write of the bytes it read,
// p[:n], as Go's race runtime does for a read system call. Evaluating the
// method value x.Read and then p keeps the original evaluation order.
func (r *fileRewriter) readInto(e *ast.CallExpr, fun sub, args []sub) (string, bool) {
	sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr)
	if !ok || e.Ellipsis.IsValid() {
		return "", false
	}
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return "", false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok || r.instrumented(fn) {
		return "", false // its body checks its own writes
	}
	var hook rtName
	switch sig := fn.Type().(*types.Signature); {
	case fn.Name() == "Read" && len(args) == 1 && isReadSig(sig, 1):
		hook = "ReadInto"
	case fn.Name() == "ReadAt" && len(args) == 2 && isReadSig(sig, 2) && types.Identical(sig.Params().At(1).Type(), types.Typ[types.Int64]):
		hook = "ReadAtInto"
	default:
		return "", false
	}
	method := fun.text
	if fun.lo != e.Fun.Pos() || fun.hi != e.Fun.End() {
		method = r.spliceNode(e.Fun, fun) // fun replaces only the receiver
	}
	parts := []string{r.g(), r.site(e.Lparen), method}
	for i, a := range e.Args {
		parts = append(parts, r.spliceNode(a, args[i]))
	}
	return hook.ref() + "(" + strings.Join(parts, ", ") + ")", true
}

// isReadSig reports whether sig is func([]byte[, ...]) (int, error) with
// nparams parameters.
func isReadSig(sig *types.Signature, nparams int) bool {
	if sig.Params().Len() != nparams || sig.Results().Len() != 2 || sig.Variadic() {
		return false
	}
	sl, ok := sig.Params().At(0).Type().(*types.Slice)
	if !ok || !types.Identical(sl.Elem(), types.Typ[types.Byte]) {
		return false
	}
	return types.Identical(sig.Results().At(0).Type(), types.Typ[types.Int]) &&
		types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
}

// instrumented reports whether fn belongs to the main module, whose
// packages bigfoot instruments (a method there checks its own accesses).
func (r *fileRewriter) instrumented(fn *types.Func) bool {
	m := r.p.pkg.Module
	if fn.Pkg() == nil || m == nil {
		return false
	}
	path := fn.Pkg().Path()
	return path == m.Path || strings.HasPrefix(path, m.Path+"/") || strings.HasPrefix(path, m.Path+"_test")
}
