module stdsync

go 1.26
