// Parsing a certificate reads its DER bytes in the standard library's
// vendored golang.org/x/crypto/cryptobyte (vendor/golang.org/x/...),
// which go -race instruments like any other package: a write of those
// bytes that nothing orders with the parse races with it, as go run -race
// reports, with the read's stack inside cryptobyte. The goroutine creates
// a file after its write and main waits to see the file, which orders
// nothing (testdata/edges/fileops) but makes the write come first, so
// that the parse's first read of the byte meets it.
package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"time"
)

func main() {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "edges"},
		NotBefore:    time.Unix(0, 0),
		NotAfter:     time.Unix(1<<31, 0),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "vendoredstd")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "written")
	go func() {
		der[0] = 0x30 // WRITE
		f, err := os.Create(name)
		if err != nil {
			panic(err)
		}
		f.Close()
	}()
	for {
		if _, err := os.Stat(name); err == nil {
			break
		}
		runtime.Gosched()
	}
	cert, err := x509.ParseCertificate(der) // READ
	if err != nil {
		panic(err)
	}
	fmt.Println(cert.Subject.CommonName)
}
