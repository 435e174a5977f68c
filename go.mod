module github.com/bigfoot-go/bigfoot

go 1.26.8

require golang.org/x/tools v0.52.0

require (
	github.com/aclements/go-z3 v0.0.0-20220809013456-4675d5f90ca5 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
)
