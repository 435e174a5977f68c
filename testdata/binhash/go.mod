module example.com/binhash

go 1.22
