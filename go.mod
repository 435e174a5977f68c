module github.com/bigfoot-go/bigfoot

go 1.26.8

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
)
